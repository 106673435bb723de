import { extname, resolve } from 'node:path';
import { stringify } from 'yaml';
import { RestbusError } from '@restbus/infra';
import { writeFileAtomic } from '@restbus/project-format';
import { describeFileError } from '../project/describe-file-error';
import { showPath } from '../project/show-path';
import { inspectProject } from '../validate/validate-project';
import { toOpenApi } from './to-openapi';

export interface ExportOptions {
  cwd: string;
  configFile: string;
  /** The file to write (JSON when it ends in .json, else YAML); the text is returned when absent. */
  output?: string;
  /** Warnings (a dangling documentation-only file) stop the export too. */
  strict?: boolean;
}

/**
 * Validates the project as `validate` does, then writes (or returns) its OpenAPI 3.1 document; a documentation-only
 * file that does not exist (a warning) is left out of the document.
 */
export async function exportOpenApi(options: ExportOptions): Promise<{
  text: string;
  paths: number;
  /** The file written, as messages name it (showPath: relative to cwd when inside it). */
  file?: string;
  warnings: string[];
}> {
  const { project, warnings } = await inspectProject(options);
  const document = await toOpenApi(project);
  const json = options.output !== undefined && extname(options.output).toLowerCase() === '.json';
  // Shared objects (YAML aliases in a descriptor) are written out in full: not every OpenAPI reader takes aliases.
  const text = json
    ? `${JSON.stringify(document, null, 2)}\n`
    : stringify(document, { lineWidth: 0, aliasDuplicateObjects: false });
  const paths = Object.keys(document.paths).length;
  if (options.output === undefined) return { text, paths, warnings };
  const file = resolve(options.cwd, options.output);
  const show = (path: string): string => showPath(options.cwd, path);
  await writeFileAtomic(file, text).catch((err: unknown) => {
    throw new RestbusError('BAD_REQUEST', `cannot write ${show(file)}: ${describeFileError(err, show)}`, {
      cause: err,
    });
  });
  return { text, paths, file: show(file), warnings };
}
