// The calls an OpenAPI 3 document's examples describe, in the order they replay, as person-api.yml's description
// says: a call is named by its examples. The parameters and the request body that carry an example of a name are
// its input (and `x-restbus-request` of its answer's example, for an input the schemas refuse, which no parameter
// or body example may hold); the response whose content has an example of that name is its answer, and a name no
// response example carries is answered by the operation's response without a body. An operation with no example is
// called once, with no input. Order: every POST, PUT and PATCH, then every GET, then every DELETE, the last written
// first (so that a record's DELETE comes before its collection's); an operation's calls in the order their names
// are first written (parameters, request body, responses).

/** What the reader reads of an OpenAPI 3 document (YAML parsed as it is: `$ref`s inside the file are followed). */
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
}

export interface ContractCall {
  /** The examples' name. */
  name: string;
  method: string;
  /** The path template, `/persons/{personId}`. */
  path: string;
  input: { path: Record<string, unknown>; query: Record<string, unknown>; body?: unknown };
  expected: {
    /** The response's key, `200`. */
    status: string;
    /** The example's value; absent for a response without a body. */
    body?: unknown;
    /** The headers whose example of this name the reply must carry, by lower-case name. */
    headers: Record<string, string>;
    /** The answer is an event stream (the operation's only 2xx content is `text/event-stream`). */
    stream?: boolean;
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const PHASES: Record<string, number> = { post: 0, put: 0, patch: 0, get: 1, delete: 2 };

type Node = Record<string, unknown>;
interface Example {
  value?: unknown;
  'x-restbus-request'?: { path?: Node; query?: Node; body?: unknown };
}
interface Parameter {
  name: string;
  in: string;
  examples?: Record<string, Example>;
}
interface MediaType {
  examples?: Record<string, Example>;
}
interface Response {
  content?: Record<string, MediaType>;
  headers?: Record<string, { examples?: Record<string, Example> }>;
}

/** Follows a `$ref` inside the document (`#/components/...`), as often as it takes. */
function follow<T>(document: OpenApiDocument, node: unknown): T {
  let current = node;
  for (let hops = 0; hops < 16; hops++) {
    const ref = (current as { $ref?: unknown } | undefined)?.$ref;
    if (typeof ref !== 'string') return current as T;
    if (!ref.startsWith('#/')) throw new Error(`only references inside the document are read: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((at, part) => (at as Node | undefined)?.[part], document);
  }
  throw new Error('a $ref chain longer than 16');
}

const namesOf = (examples: Record<string, unknown> | undefined): string[] => Object.keys(examples ?? {});

function readOperationCalls(document: OpenApiDocument, path: string, method: string): ContractCall[] {
  const item = document.paths[path];
  const operation = item[method] as Node;
  // An operation's own parameter replaces the path item's of the same name and location.
  const parameters = new Map<string, Parameter>();
  for (const node of [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])]) {
    const parameter = follow<Parameter>(document, node);
    parameters.set(`${parameter.in} ${parameter.name}`, parameter);
  }
  const requestBody = follow<{ content?: Record<string, MediaType> } | undefined>(document, operation.requestBody);
  const bodyExamples = requestBody?.content?.['application/json']?.examples ?? {};
  const responses = Object.entries((operation.responses as Node) ?? {}).map(
    ([status, node]) => [status, follow<Response>(document, node)] as const,
  );
  const jsonExamples = (response: Response): Record<string, Example> =>
    response.content?.['application/json']?.examples ?? {};

  const names = [
    ...new Set([
      ...[...parameters.values()].flatMap((parameter) => namesOf(parameter.examples)),
      ...namesOf(bodyExamples),
      ...responses.flatMap(([, response]) => namesOf(jsonExamples(response))),
    ]),
  ];
  const bodiless = responses.find(([status, response]) => /^2/.test(status) && response.content === undefined);
  const success = responses.find(([status]) => /^2/.test(status));

  const callFor = (name: string | undefined): ContractCall => {
    const input: ContractCall['input'] = { path: {}, query: {} };
    for (const parameter of parameters.values()) {
      const example = name === undefined ? undefined : parameter.examples?.[name];
      if (example && (parameter.in === 'path' || parameter.in === 'query')) {
        input[parameter.in][parameter.name] = follow<Example>(document, example).value;
      }
    }
    if (name !== undefined && bodyExamples[name]) input.body = follow<Example>(document, bodyExamples[name]).value;
    const answered =
      name === undefined ? undefined : responses.find(([, response]) => jsonExamples(response)[name] !== undefined);
    const label = name ?? '(no input)';
    if (answered) {
      const [status, response] = answered;
      const example = follow<Example>(document, jsonExamples(response)[name!]);
      const refused = example['x-restbus-request'];
      if (refused?.path) Object.assign(input.path, refused.path);
      if (refused?.query) Object.assign(input.query, refused.query);
      if (refused && 'body' in refused) input.body = refused.body;
      const headers: Record<string, string> = {};
      for (const [header, node] of Object.entries(response.headers ?? {})) {
        const own = follow<{ examples?: Record<string, Example> }>(document, node).examples?.[name!];
        if (own) headers[header.toLowerCase()] = String(follow<Example>(document, own).value);
      }
      return { name: label, method, path, input, expected: { status, body: example.value, headers } };
    }
    if (bodiless) return { name: label, method, path, input, expected: { status: bodiless[0], headers: {} } };
    const streams = success && Object.keys(success[1].content ?? {}).every((type) => type === 'text/event-stream');
    if (name === undefined && success && streams) {
      return { name: label, method, path, input, expected: { status: success[0], headers: {}, stream: true } };
    }
    throw new Error(`${method.toUpperCase()} ${path}: no response answers the example ${label}`);
  };
  return names.length === 0 ? [callFor(undefined)] : names.map(callFor);
}

/** Every call the document's examples describe, in the order they replay (see above). */
export function readContractCalls(document: OpenApiDocument): ContractCall[] {
  const operations = Object.keys(document.paths).flatMap((path) =>
    METHODS.filter((method) => document.paths[path][method] !== undefined).map((method) => ({ path, method })),
  );
  const ordered = [0, 1, 2].flatMap((phase) => {
    const inPhase = operations.filter(({ method }) => PHASES[method] === phase);
    return phase === 2 ? inPhase.reverse() : inPhase;
  });
  return ordered.flatMap(({ path, method }) => readOperationCalls(document, path, method));
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * An expected value for jest's toEqual where every UUID an example writes stands for the one the service generates
 * (another on every run): a string holding one matches the same string with any UUID in its place.
 */
export function withGeneratedValues(value: unknown): unknown {
  if (typeof value === 'string') {
    const parts = value.split(UUID);
    if (parts.length === 1) return value;
    const source = parts.map(escapeRegExp).join(UUID.source);
    return expect.stringMatching(new RegExp(`^${source}$`));
  }
  if (Array.isArray(value)) return value.map(withGeneratedValues);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withGeneratedValues(inner)]));
  }
  return value;
}
