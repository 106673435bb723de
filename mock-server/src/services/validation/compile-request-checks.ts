import { readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Request } from 'express';
import {
  createInputCompilers,
  findSchemaErrors,
  isJsonMediaType,
  isJsonObject,
  type JsonObject,
  readErrorMessage,
  REQUEST_MISTAKES,
  type RequestProblem,
  type SchemaCompilers,
  type ValidatorPair,
} from '@restbus/infra';
import {
  isInside,
  listMethods,
  type MethodDescriptor,
  type Project,
  type RequestParameter,
  type ServiceDescriptor,
} from '@restbus/project-format';
import { hasBody } from '../../request/parse-body';

/**
 * The problems of one request against its method's declarations, none when it matches; `bodyLength` is the length of
 * the body's text, `partial` says that only the first problem of a large body was looked for (findSchemaErrors).
 */
export interface RequestCheck {
  (req: Request, bodyLength: number): { problems: RequestProblem[]; partial: boolean };
  /** Whether the check reads the body (the server parses it first). */
  readsBody: boolean;
}

export interface RequestChecks {
  /** The check of a method; undefined when the method declares nothing to check. */
  of(service: ServiceDescriptor, method: string): RequestCheck | undefined;
  /**
   * Request schemas that cannot be used (missing, not JSON, not a schema, not compilable) by a route that
   * `unchecked` does not name: --validate cannot check those bodies, so the server does not start.
   */
  problems: string[];
  /** The same, for the routes `unchecked` names: their bodies go unchecked, said once at load. */
  skipped: string[];
}

export interface RequestCheckOptions {
  /** --validate-unchecked: routes (`METHOD /uriTemplate`) whose bodies go unchecked when their schema cannot be used. */
  unchecked?: readonly string[];
}

/** A request schema is a JSON file beside the descriptor: bounded like the project's other files. */
const MAX_SCHEMA_BYTES = 1024 * 1024;
const DRAFT_2020 = /json-schema\.org\/draft\/2020-12\/schema/;
// rest-tool projects' schemas are often draft-04, which ajv 8 does not ship: its compilers read them as draft 4 means
// them (a boolean exclusiveMinimum beside minimum: adaptOpenApiSchema), with draft-07's meta-schema.
const DRAFT_04 = /json-schema\.org\/draft-04\/schema/;

type Location = 'path' | 'query' | 'header';
const LOCATION_OF: Record<RequestParameter['kind'], Location | 'body'> = {
  URL: 'path',
  QUERY: 'query',
  HEADER: 'header',
  BODY: 'body',
};

const toProblems = (location: string, errors: ErrorObject[] | null | undefined): RequestProblem[] =>
  (errors ?? []).map((error) => {
    // ajv's `required` error names the property; its params are typed `any`.
    const missingProperty: unknown = error.params.missingProperty;
    const missing = typeof missingProperty === 'string' ? missingProperty : undefined;
    if (location === 'body') {
      const where = missing ? `${error.instancePath}/${missing}` : error.instancePath;
      return { location: `body${where}`, message: missing ? 'is required' : (error.message ?? 'is invalid') };
    }
    const name = missing ?? error.instancePath.split('/')[1] ?? '';
    return { location: `${location}.${name}`, message: missing ? 'is required' : (error.message ?? 'is invalid') };
  });

const objectSchema = (parameters: RequestParameter[], name: (parameter: RequestParameter) => string) => ({
  type: 'object',
  properties: Object.fromEntries(parameters.map((parameter) => [name(parameter), { type: parameter.type }])),
  required: parameters.filter((parameter) => parameter.required).map(name),
});

const contentTypeOf = (req: Request): string =>
  String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();

interface Compilers {
  /** Parameters: text, coerced. */
  params: SchemaCompilers;
  /** BODY parameters, and body schemas by their `$schema`. */
  draft7: SchemaCompilers;
  draft4: SchemaCompilers;
  draft2020: SchemaCompilers;
}

function compileCheck(
  method: MethodDescriptor,
  bodySchema: ValidatorPair<ValidateFunction> | undefined,
  ajv: Compilers,
) {
  const declared = method.request?.parameters ?? [];
  const parameters: Array<{ location: Location; validate: ValidateFunction }> = [];
  for (const location of ['path', 'query', 'header'] as const) {
    const own = declared.filter((parameter) => LOCATION_OF[parameter.kind] === location);
    if (own.length === 0) continue;
    // Header names arrive in lower case.
    const name = (parameter: RequestParameter) =>
      location === 'header' ? parameter.name.toLowerCase() : parameter.name;
    parameters.push({ location, validate: ajv.params.all.compile(objectSchema(own, name)) });
  }
  const bodyParameters = declared.filter((parameter) => parameter.kind === 'BODY');
  const fields = bodyParameters.length
    ? ajv.draft7.all.compile(objectSchema(bodyParameters, (parameter) => parameter.name))
    : undefined;
  if (parameters.length === 0 && !fields && !bodySchema) return undefined;

  const check = (req: Request, bodyLength: number): ReturnType<RequestCheck> => {
    const problems: RequestProblem[] = [];
    let partial = false;
    const values = { path: req.params, query: req.query, header: req.headers };
    for (const { location, validate } of parameters) {
      // Coercion turns "7" into 7 for the check; it works on a copy, an implementation still gets the text.
      if (!validate({ ...values[location] })) problems.push(...toProblems(location, validate.errors));
    }
    const body: unknown = req.body;
    if (bodySchema) {
      if (body === undefined && !hasBody(req)) problems.push({ location: 'body', message: 'is required' });
      // Any other type (text, XML, none named), read or not: the gateway's answer to a JSON body sent otherwise.
      else if (!isJsonMediaType(contentTypeOf(req))) problems.push(REQUEST_MISTAKES.notJson.problem);
      else {
        const found = findSchemaErrors(bodySchema, body, bodyLength);
        problems.push(...toProblems('body', found.errors));
        partial = found.partial;
      }
    }
    // BODY parameters are fields of an object body; a schema, when there is one, says the rest.
    if (fields && isJsonObject(body) && !fields(body)) problems.push(...toProblems('body', fields.errors));
    else if (fields && !bodySchema && body === undefined && bodyParameters.some((parameter) => parameter.required)) {
      problems.push({ location: 'body', message: 'is required' });
    }
    return { problems, partial };
  };
  return Object.assign(check, { readsBody: fields !== undefined || bodySchema !== undefined });
}

async function readSchema(file: string): Promise<JsonObject | boolean> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new Error('does not exist');
  if (info.size > MAX_SCHEMA_BYTES) throw new Error(`is larger than ${MAX_SCHEMA_BYTES} bytes`);
  let schema: unknown;
  try {
    schema = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`is not valid JSON: ${readErrorMessage(err)}`);
  }
  if (!isJsonObject(schema) && typeof schema !== 'boolean') throw new Error('is not a JSON Schema (an object)');
  return schema;
}

/** A body schema compiled twice (see ValidatorPair): listing every error is bounded to small bodies. */
function compileSchema(schema: JsonObject | boolean, ajv: Compilers): ValidatorPair<ValidateFunction> {
  const dialect = typeof schema === 'object' && typeof schema.$schema === 'string' ? schema.$schema : '';
  if (typeof schema === 'object' && DRAFT_04.test(dialect)) {
    const { $schema: _draft04, ...rest } = schema;
    return ajv.draft4.compilePair(rest);
  }
  return (DRAFT_2020.test(dialect) ? ajv.draft2020 : ajv.draft7).compilePair(schema);
}

/** `METHOD /uriTemplate`, as --validate-unchecked names a route: the template as its descriptor writes it. */
const routeName = (method: string, service: ServiceDescriptor): string =>
  `${method.toUpperCase()} ${service.descriptor.uriTemplate}`;

/** Whether `entry` names the route: the method in any case, the template as written, spaces around ignored. */
function isNamed(route: string, entry: string): boolean {
  const [method = '', ...path] = entry.trim().split(/\s+/);
  return `${method.toUpperCase()} ${path.join(' ')}` === route;
}

/** The keyword of a schema ajv refused, as its message names it (ajv attaches no error objects to that throw). */
function findKeyword(message: string): string | undefined {
  if (/can't resolve reference/.test(message)) return '$ref';
  if (/regular expression/i.test(message)) return 'pattern';
  return /(?:^|\/)([$\w-]+) must /.exec(message)?.[1];
}

/**
 * The mock server's --validate: for each method, a check of the parameters its descriptor declares (URL, QUERY,
 * HEADER by type and `required`; BODY as fields of an object body) and of its body against the JSON Schema file
 * `request.validationSchema` names, its `format`s included. Schemas are read and compiled once, here, at load. A
 * schema that cannot be used is a problem naming the descriptor's file and line (and the keyword ajv refused), unless
 * `options.unchecked` names its route: never a body let through unsaid.
 */
export async function compileRequestChecks(
  project: Project,
  options: RequestCheckOptions = {},
): Promise<RequestChecks> {
  const unchecked = options.unchecked ?? [];
  // The gateway's and the services' setup (createInputCompilers): formats checked as they check them (JSON Schema's,
  // each in time linear in the value), linear patterns and uniqueItems: a client's value never holds the loop.
  const draft7 = createInputCompilers('draft-07');
  const ajv: Compilers = {
    params: draft7.params,
    draft7: draft7.body,
    draft4: createInputCompilers('draft-04').body,
    draft2020: createInputCompilers('2020-12').body,
  };
  const checks = new Map<ServiceDescriptor, Map<string, RequestCheck>>();
  // One compilation per file: methods may share a schema, and ajv refuses a second schema with the same $id.
  const compiled = new Map<string, Promise<ValidatorPair<ValidateFunction>>>();
  const problems: string[] = [];
  const skipped: string[] = [];
  const servicesDir = join(project.environment.restapiRoot, project.config.servicesRoot);
  for (const service of project.services) {
    const own = new Map<string, RequestCheck>();
    for (const [method, definition] of listMethods(service.descriptor)) {
      const named = definition.request?.validationSchema;
      let bodySchema: ValidatorPair<ValidateFunction> | undefined;
      if (named) {
        const pointer = `/methods/${method}/request/validationSchema`;
        const file = resolve(join(servicesDir, service.path), named);
        const shown = relative(project.environment.restapiRoot, file);
        try {
          if (!isInside(project.environment.restapiRoot, file)) throw new Error('is outside the project');
          let validate = compiled.get(file);
          if (!validate) {
            validate = readSchema(file).then((schema) => compileSchema(schema, ajv));
            compiled.set(file, validate);
          }
          bodySchema = await validate;
        } catch (err) {
          const route = routeName(method, service);
          const message = readErrorMessage(err);
          const why = `${shown} ${message}`;
          const keyword = findKeyword(message);
          const at = `${service.file}:${service.lineOf(pointer)}: ${pointer}: ${route}`;
          if (unchecked.some((entry) => isNamed(route, entry))) {
            skipped.push(`${at}: served unchecked (--validate-unchecked): ${why}`);
          } else {
            problems.push(
              `${at}: --validate cannot check it: ${why}${keyword === undefined ? '' : ` (keyword ${keyword})`}; ` +
                `fix the schema, or serve it unchecked with --validate-unchecked ${JSON.stringify(route)}`,
            );
          }
        }
      }
      const check = compileCheck(definition, bodySchema, ajv);
      if (check) own.set(method, check);
    }
    checks.set(service, own);
  }
  return { of: (service, method) => checks.get(service)?.get(method), problems, skipped };
}
