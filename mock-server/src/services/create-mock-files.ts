import { readFile } from 'node:fs/promises';
import { extname, relative, resolve, sep } from 'node:path';
import { contentType } from 'mime-types';
import { isJsonMediaType, readErrorCode, readErrorMessage, RestbusError } from '@restbus/infra';
import {
  compileMockTemplate,
  TEMPLATE_EXTENSION,
  type MockTemplate,
  type TemplateEscaping,
} from './templates/compile-mock-template';

export interface MockFile {
  /** The file's bytes, sent as they are. */
  body: Buffer;
  /** Whether the file holds JSON (by its declared type, else by its extension). */
  json: boolean;
  /** The content type to send when the descriptor declares none. */
  type: string;
  /** The file relative to the project, as messages and X-Mock-Warning name it. */
  name: string;
  /** A `.hbs` file: the body is rendered from this for each request (`body` is the template's source). */
  template?: MockTemplate;
}

/** Whether a mock file is a template: its name ends in `.hbs`, the type coming from the name before it. */
export const isTemplateFile = (name: string): boolean => name.toLowerCase().endsWith(TEMPLATE_EXTENSION);

const escapingFor = (type: string, json: boolean): TemplateEscaping =>
  json ? 'json' : /html|xml/.test(type) ? 'html' : 'none';

export interface MockFiles {
  /** Reads a file beside a service (cached); a missing or broken file is a MOCK_UNAVAILABLE. */
  read(serviceDir: string, name: string, declaredType?: string): Promise<MockFile>;
}

/**
 * Mock files of one project. Contents are cached because the hot path is "send the same file again"; the watcher
 * reloads the project on any change, with a new cache, so an edited file is read afresh.
 */
export function createMockFiles(projectRoot: string): MockFiles {
  const cache = new Map<string, Promise<MockFile>>();

  async function load(path: string, name: string, declaredType: string | undefined): Promise<MockFile> {
    let body: Buffer;
    try {
      body = await readFile(path);
    } catch (err) {
      const reason = readErrorCode(err) === 'ENOENT' ? 'does not exist' : 'cannot be read';
      throw new RestbusError('MOCK_UNAVAILABLE', `the mock file ${name} ${reason}`);
    }
    const template = isTemplateFile(path);
    const typed = template ? path.slice(0, -TEMPLATE_EXTENSION.length) : path;
    const json = declaredType ? isJsonMediaType(declaredType) : extname(typed).toLowerCase() === '.json';
    // JSON goes out as plain `application/json`: generated tests (and upstream's) compare the header exactly.
    const type = json ? 'application/json' : contentType(extname(typed)) || 'application/octet-stream';
    if (template) {
      const compiled = compileMockTemplate(body.toString('utf8'), name, escapingFor(declaredType ?? type, json));
      return { body, json, type, name, template: compiled };
    }
    if (json) {
      try {
        JSON.parse(body.toString('utf8'));
      } catch (err) {
        throw new RestbusError('MOCK_UNAVAILABLE', `the mock file ${name} is not valid JSON: ${readErrorMessage(err)}`);
      }
    }
    return { body, json, type, name };
  }

  return {
    read(serviceDir, file, declaredType) {
      const path = resolve(serviceDir, file);
      const name = relative(projectRoot, path);
      if (name.startsWith(`..${sep}`) || name === '..') {
        return Promise.reject(new RestbusError('MOCK_UNAVAILABLE', `the mock file ${file} is outside the project`));
      }
      const key = `${declaredType ?? ''}\0${path}`;
      let entry = cache.get(key);
      if (!entry) {
        entry = load(path, name, declaredType);
        // A failure is not cached: the user is probably about to create or fix the file.
        entry.catch(() => cache.delete(key));
        cache.set(key, entry);
      }
      return entry;
    },
  };
}
