import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import {
  addLinearUniqueItems,
  describeRequestProblems,
  findSchemaErrors,
  isJsonMediaType,
  isNestedDeeperThan,
  linearPatternEngine,
  MAX_JSON_DEPTH,
  parseJsonInSlices,
  REQUEST_MISTAKES,
  type IncomingRequest,
  type RequestProblem,
  type ValidatorPair,
} from '@restbus/infra';
import type { ApiParameter, JsonSchema } from '@restbus/openapi';
import type { ApiEndpoint } from '../openapi/endpoint';
import { countExpandedNodes } from './count-expanded-nodes';

/** One thing wrong with a call (the shape the mock server's --validate answers with too). */
export type Problem = RequestProblem;

interface OperationValidator {
  parameters: Array<{ location: 'path' | 'query' | 'header'; validate: ValidateFunction }>;
  /** `onlyJson`: the operation takes no other type of body, so a body of another type is refused. */
  body?: { required: boolean; onlyJson: boolean; validate: ValidatorPair<ValidateFunction> };
}

/** The ajv instances an operation is compiled with: parameters (coerced), bodies (listing all errors or the first). */
interface Compilers {
  params: Ajv;
  body: Ajv;
  bodyFirst: Ajv;
}

const LOCATIONS = ['path', 'query', 'header'] as const;

/** The JSON request body: the schema of its first JSON media type; `onlyJson` when it takes no other type. */
function bodySchema({ model }: ApiEndpoint): { schema: JsonSchema; required: boolean; onlyJson: boolean } | undefined {
  const content = model.requestBody?.content ?? {};
  const types = Object.keys(content);
  const json = types.find(isJsonMediaType);
  const schema = json === undefined ? undefined : content[json].schema;
  return schema === undefined
    ? undefined
    : { schema, required: model.requestBody?.required === true, onlyJson: types.every(isJsonMediaType) };
}

/**
 * The deepest JSON body --validate reads: what the services and the mock server read too. Native JSON work costs
 * more a level the deeper it goes (1 MiB of items 900 levels deep: 130 ms to parse or stringify, 37 ms at 60).
 */
export const MAX_BODY_DEPTH = MAX_JSON_DEPTH;

/** The most schema nodes one operation may compile to: far beyond any real API, far below a stalled reload. */
export const MAX_VALIDATED_NODES = 20_000;

function compileOperation(endpoint: ApiEndpoint, ajv: Compilers): OperationValidator {
  const { parameters } = endpoint.model;
  const body = bodySchema(endpoint);
  // Compiling runs on the main thread, on start and on every reload: an operation too large to compile quickly is
  // left unvalidated (and said so) rather than stalling the gateway.
  const compiled = [...LOCATIONS.flatMap((location) => parameters[location]), body?.schema];
  if (countExpandedNodes(compiled, MAX_VALIDATED_NODES) > MAX_VALIDATED_NODES) {
    throw new Error(`its schemas expand to more than ${MAX_VALIDATED_NODES} nodes once their $refs are resolved`);
  }
  const validator: OperationValidator = { parameters: [] };
  for (const location of LOCATIONS) {
    const own = parameters[location];
    if (own.length === 0) continue;
    const name = (parameter: ApiParameter): string =>
      location === 'header' ? parameter.name.toLowerCase() : parameter.name;
    validator.parameters.push({
      location,
      validate: ajv.params.compile({
        type: 'object',
        // A parameter written with `content` (or with no schema) takes any value.
        properties: Object.fromEntries(own.map((parameter) => [name(parameter), parameter.schema ?? {}])),
        required: own.filter((parameter) => parameter.required).map(name),
      }),
    });
  }
  if (body) {
    const validate = { first: ajv.bodyFirst.compile(body.schema), all: ajv.body.compile(body.schema) };
    validator.body = { required: body.required, onlyJson: body.onlyJson, validate };
  }
  return validator;
}

function toProblems(location: string, errors: ValidateFunction['errors']): Problem[] {
  return (errors ?? []).map((error) => {
    const missing: unknown = error.params.missingProperty;
    if (location === 'body') return { location: `body${error.instancePath}`, message: error.message ?? 'is invalid' };
    const name = missing ?? error.instancePath.split('/')[1] ?? '';
    return { location: `${location}.${name}`, message: missing ? 'is required' : (error.message ?? 'is invalid') };
  });
}

/** What is wrong with a call, as its 400/422 answer says it; undefined when the call matches. */
export interface Refusal {
  message: string;
  problems: Problem[];
}

const refuse = (problems: Problem[], partial = false): Refusal | undefined =>
  problems.length
    ? describeRequestProblems('the request does not match the API description', problems, partial)
    : undefined;

async function check(validator: OperationValidator, request: IncomingRequest): Promise<Refusal | undefined> {
  const problems: Problem[] = [];
  const values = { path: request.parameters.uri, query: request.parameters.query, header: request.headers };
  for (const { location, validate } of validator.parameters) {
    // Coercion turns "7" into 7 for the check; it works on a copy, the service still gets the text.
    if (!validate({ ...values[location] })) problems.push(...toProblems(location, validate.errors));
  }
  if (validator.body) {
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (request.body === '') {
      if (validator.body.required) problems.push({ location: 'body', message: 'is required' });
    } else if (isJsonMediaType(type)) {
      // Deeper than any API needs, and a stack a parse, a check or a copy would overflow.
      if (isNestedDeeperThan(request.body, MAX_BODY_DEPTH)) {
        problems.push(REQUEST_MISTAKES.jsonTooDeep.problem);
        return refuse(problems);
      }
      let body: unknown;
      try {
        // A large body is parsed a slice at a time: other clients are served between the slices.
        body = await parseJsonInSlices(request.body);
      } catch {
        problems.push(REQUEST_MISTAKES.malformedJson.problem);
        return refuse(problems);
      }
      const { errors, partial } = findSchemaErrors(validator.body.validate, body, request.body.length);
      problems.push(...toProblems('body', errors));
      return refuse(problems, partial);
    } else if (validator.body.onlyJson) {
      // The services and the mock server refuse it too: one answer for a JSON body sent as another type.
      problems.push(REQUEST_MISTAKES.notJson.problem);
    }
  }
  return refuse(problems);
}

/** The check of one operation's calls: what is wrong with a call, undefined when it matches. */
export type RequestCheck = (request: IncomingRequest) => Promise<Refusal | undefined>;

/**
 * Compiles, once per operation, ajv validators of its path, query and header parameters and of its JSON request
 * body (OAS 3.1 schemas as JSON Schema 2020-12, the others as draft-07 with OpenAPI's `nullable`). The checks go
 * onto the compiled endpoints (createRouteTable), so a reload swaps routes and checks in one assignment. `skipped`:
 * operations left unchecked because their schemas do not compile (e.g. a cyclic `$ref`), with the reason.
 */
export function compileRequestChecks(endpoints: readonly ApiEndpoint[]): {
  checks: Map<ApiEndpoint, RequestCheck>;
  skipped: string[];
} {
  // Parameters arrive as text and are coerced for the check; a JSON body has its own types and is not.
  // Patterns compiled so that V8's linear-time fallback can take a catastrophic one over (see linearPatternEngine).
  const code = { regExp: linearPatternEngine };
  const params = { allErrors: true, strict: false, coerceTypes: 'array', validateFormats: false, code } as const;
  const body = { allErrors: true, strict: false, validateFormats: false, code } as const;
  const first = { ...body, allErrors: false } as const;
  const draft7 = {
    params: addLinearUniqueItems(new Ajv(params)),
    body: addLinearUniqueItems(new Ajv(body)),
    bodyFirst: addLinearUniqueItems(new Ajv(first)),
  };
  const draft2020 = {
    params: addLinearUniqueItems(new Ajv2020(params)),
    body: addLinearUniqueItems(new Ajv2020(body)),
    bodyFirst: addLinearUniqueItems(new Ajv2020(first)),
  };
  const checks = new Map<ApiEndpoint, RequestCheck>();
  const skipped: string[] = [];
  for (const endpoint of endpoints) {
    try {
      const validator = compileOperation(endpoint, endpoint.api.dialect === '3.1' ? draft2020 : draft7);
      checks.set(endpoint, (request) => check(validator, request));
    } catch (err) {
      const { method, path } = endpoint.model;
      skipped.push(`${method.toUpperCase()} ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { checks, skipped };
}
