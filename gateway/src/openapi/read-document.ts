import { readFile } from 'node:fs/promises';
import yaml from 'js-yaml';
import { RestbusError } from '@restbus/infra';

/** Reads a YAML or JSON file; an unreadable file or a syntax error names the file and the line. */
export async function readDocument(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new RestbusError('OPENAPI_INVALID', `${file}: cannot read the API description: ${reason}`, { cause: err });
  }
  try {
    // The default (core) schema: plain data only, no custom tags.
    return yaml.load(text, { filename: file });
  } catch (err) {
    if (err instanceof yaml.YAMLException) {
      throw new RestbusError('OPENAPI_INVALID', `${file}:${err.mark.line + 1}: ${err.reason}`, { cause: err });
    }
    throw err;
  }
}
