import { extname, resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { createSchemaCheck, readYamlFile } from '@restbus/project-format';
import { DEFAULT_DESCRIPTION, HTTP_METHODS, SERVICE_TYPES, type ServiceSpec } from './service-spec';

type BulkEntry = Pick<ServiceSpec, 'path' | 'uriTemplate' | 'name' | 'methods'> & {
  type?: ServiceSpec['type'];
  description?: string;
};

const checkBulkFile = createSchemaCheck({
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    required: ['path', 'uriTemplate', 'name'],
    additionalProperties: false,
    properties: {
      type: { enum: SERVICE_TYPES },
      path: { type: 'string' },
      uriTemplate: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      methods: { type: 'array', items: { enum: HTTP_METHODS } },
    },
  },
});

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
 * Reads an add-bulk file: a JSON or YAML list of `{type, path, uriTemplate, name, description, methods}`, checked
 * with the same schema machinery as the project's files. Every problem of an entry's shape is listed as
 * `<file>:<line>: /<index>/<field>: <message>`; the well-formed entries are returned for the further checks.
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
  const checked = checkBulkFile(read.file).map((problem) => {
    // `/3/type` belongs to entry 3; a problem of the whole list is the only one there is.
    const entry = /^\/(\d+)/.exec(problem.pointer);
    if (!entry) throw new RestbusError('BAD_REQUEST', problem.text);
    return { ...problem, order: Number(entry[1]) };
  });
  const problems = checked.map(({ order, text }) => ({ order, text }));
  // An unknown field (a typo) is reported, but the entry is still checked further: one run reports everything.
  const faulty = new Set(
    checked.filter((problem) => problem.keyword !== 'additionalProperties').map((problem) => problem.order),
  );
  const specs: ServiceSpec[] = [];
  const labels: string[] = [];
  const order: number[] = [];
  (list as BulkEntry[]).forEach((entry, index) => {
    if (faulty.has(index)) return;
    specs.push({
      type: entry.type ?? 'RESOURCE',
      path: entry.path,
      uriTemplate: entry.uriTemplate,
      name: entry.name,
      description: entry.description ?? DEFAULT_DESCRIPTION,
      methods: entry.methods,
    });
    labels.push(at(`/${index}`));
    order.push(index);
  });
  return { specs, labels, order, problems };
}
