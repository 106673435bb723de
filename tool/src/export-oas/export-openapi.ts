import { dirname, extname, resolve } from 'node:path';
import { stringify } from 'yaml';
import { RestbusError } from '@restbus/infra';
import { loadProject } from '@restbus/mock-server';
import { writeFileAtomic } from '../project/write-file-atomic';
import { checkProjectFiles } from '../validate/validate-project';
import { toOpenApi } from './to-openapi';

export interface ExportOptions {
  cwd: string;
  configFile: string;
  /** The file to write (JSON when it ends in .json, else YAML); the text is returned when absent. */
  output?: string;
}

/** Validates the project as `validate` does, then writes (or returns) its OpenAPI 3.1 document. */
export async function exportOpenApi(options: ExportOptions): Promise<{ text: string; paths: number; file?: string }> {
  const projectDir = dirname(resolve(options.cwd, options.configFile));
  const project = await loadProject({ projectDir });
  const problems = await checkProjectFiles(project, projectDir);
  if (problems.length) throw new RestbusError('PROJECT_INVALID', problems.join('\n'));
  const document = await toOpenApi(project);
  const json = options.output !== undefined && extname(options.output).toLowerCase() === '.json';
  // Shared objects (YAML aliases in a descriptor) are written out in full: not every OpenAPI reader takes aliases.
  const text = json
    ? `${JSON.stringify(document, null, 2)}\n`
    : stringify(document, { lineWidth: 0, aliasDuplicateObjects: false });
  const paths = Object.keys(document.paths as object).length;
  if (options.output === undefined) return { text, paths };
  const file = resolve(options.cwd, options.output);
  await writeFileAtomic(file, text);
  return { text, paths, file };
}
