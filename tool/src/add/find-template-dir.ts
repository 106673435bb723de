import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { toolTemplatesDir } from '../project/paths';

/** The project's own template folder for a type when it has one (a project may customise them), else the tool's. */
export async function findTemplateDir(projectDir: string, type: string): Promise<string> {
  const own = join(projectDir, 'templates', 'services', type);
  const isDir = await stat(own).then(
    (info) => info.isDirectory(),
    () => false,
  );
  return isDir ? own : join(toolTemplatesDir, 'services', type);
}
