import { extname, resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { readYamlFile } from '@restbus/mock-server';
import { DEFAULT_DESCRIPTION, HTTP_METHODS, SERVICE_TYPES, isServiceType, type ServiceSpec } from './service-spec';

const FIELDS = ['type', 'path', 'uriTemplate', 'name', 'description', 'methods'];

export interface BulkFile {
  specs: ServiceSpec[];
  /** `<file>:<line>: /<index>: ` per spec, to prefix its problems. */
  labels: string[];
  /** The index in the file of each spec. */
  order: number[];
  /** What is wrong with the entries, each with the index of its entry. */
  problems: Array<{ order: number; text: string }>;
}

/**
 * Reads an add-bulk file: a JSON or YAML list of `{type, path, uriTemplate, name, description, methods}`. Every
 * problem of an entry's shape is listed as `<file>:<line>: /<index>/<field>: <message>`; the well-formed entries are
 * returned for the further checks (so that one run reports everything).
 */
export async function readBulkFile(cwd: string, file: string): Promise<BulkFile> {
  if (!['.json', '.yml', '.yaml'].includes(extname(file).toLowerCase())) {
    throw new RestbusError('BAD_REQUEST', `${file}: a services file ends in .json, .yml or .yaml`);
  }
  // YAML is a superset of JSON: one reader gives both formats line numbers for the messages.
  const read = await readYamlFile(resolve(cwd, file), file);
  if (!read.ok) throw new RestbusError('BAD_REQUEST', read.problems.join('\n'));
  const at = (pointer: string): string => `${file}:${read.file.lineOf(pointer)}: ${pointer || '/'}: `;
  const list = read.file.value;
  if (!Array.isArray(list) || list.length === 0) {
    throw new RestbusError('BAD_REQUEST', `${at('')}must be a non-empty list of services`);
  }
  const problems: Array<{ order: number; text: string }> = [];
  const specs: ServiceSpec[] = [];
  const labels: string[] = [];
  const order: number[] = [];
  list.forEach((raw: unknown, index) => {
    const base = `/${index}`;
    const problem = (text: string): void => {
      problems.push({ order: index, text });
    };
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      problem(`${at(base)}must be an object with type, path, uriTemplate, name and description`);
      return;
    }
    const entry = raw as Record<string, unknown>;
    // An unknown field (a typo) is reported, but the entry is still checked further: one run reports everything.
    for (const key of Object.keys(entry)) {
      if (!FIELDS.includes(key)) {
        problem(`${at(`${base}/${key}`)}is not allowed here (fields: ${FIELDS.join(', ')})`);
      }
    }
    const shapeCount = problems.length;
    for (const key of ['path', 'uriTemplate', 'name']) {
      if (entry[key] === undefined) problem(`${at(base)}must have required property '${key}'`);
      else if (typeof entry[key] !== 'string') problem(`${at(`${base}/${key}`)}must be a string`);
    }
    if (entry.description !== undefined && typeof entry.description !== 'string') {
      problem(`${at(`${base}/description`)}must be a string`);
    }
    const type = entry.type === undefined ? 'RESOURCE' : entry.type;
    if (!isServiceType(type)) {
      problem(`${at(`${base}/type`)}must be one of ${SERVICE_TYPES.map((t) => JSON.stringify(t)).join(', ')}`);
    }
    const methods = entry.methods;
    if (
      methods !== undefined &&
      (!Array.isArray(methods) || methods.some((m) => !(HTTP_METHODS as readonly unknown[]).includes(m)))
    ) {
      problem(`${at(`${base}/methods`)}must be a list of ${HTTP_METHODS.join(', ')}`);
    }
    if (problems.length > shapeCount) return;
    specs.push({
      type: type as ServiceSpec['type'],
      path: entry.path as string,
      uriTemplate: entry.uriTemplate as string,
      name: entry.name as string,
      description: (entry.description as string | undefined) ?? DEFAULT_DESCRIPTION,
      methods: methods as string[] | undefined,
    });
    labels.push(at(base));
    order.push(index);
  });
  return { specs, labels, order, problems };
}
