import { readFileSync } from 'node:fs';
import {
  compileInputCheck,
  createInputCompilers,
  describeRequestProblems,
  isJsonMediaType,
  MAX_JSON_DEPTH,
  type IncomingRequest,
  type InputCompilers,
  type InputResult,
  type RequestProblem,
  RestbusError,
} from '@restbus/infra';
import { readSourceFile } from '@restbus/openapi';
import type { ApiEndpoint } from '../openapi/endpoint';
import { compileFormCheck, findFormSchema, FORM_TYPE, MULTIPART_TYPE } from './compile-form-check';
import { countExpandedNodes } from './count-expanded-nodes';

/** One thing wrong with a call (the shape the mock server's --validate answers with too). */
export type Problem = RequestProblem;

const LOCATIONS = ['path', 'query', 'header'] as const;

/**
 * The deepest JSON body --validate reads: what the services and the mock server read too. Native JSON work costs
 * more a level the deeper it goes (1 MiB of items 900 levels deep: 130 ms to parse or stringify, 37 ms at 60).
 */
export const MAX_BODY_DEPTH = MAX_JSON_DEPTH;

/** The most schema nodes one operation may compile to: far beyond any real API, far below a stalled reload. */
export const MAX_VALIDATED_NODES = 20_000;

// What compileInputCheck says of a call that does not match, said of a form that does not either.
const MESSAGE = 'the request does not match the API description';

/** What is wrong with a call, as its 400/422 answer says it; undefined when the call matches. */
export interface Refusal {
  message: string;
  problems: Problem[];
}

/** The check of one operation's calls: what is wrong with a call, undefined when it matches. */
export type RequestCheck = (request: IncomingRequest) => Promise<Refusal | undefined>;

const name = (model: ApiEndpoint['model']): string => `${model.method.toUpperCase()} ${model.path}`;
const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The refusal of a call from its input check's result and its form's problems; undefined when neither has any. */
function toRefusal(result: InputResult, formProblems: Problem[]): Refusal | undefined {
  if (formProblems.length === 0) return result.ok ? undefined : { message: result.message, problems: result.problems };
  if (result.ok) return describeRequestProblems(MESSAGE, formProblems);
  // Parameter problems already cut to the first 100 say so in their message: a form's add nothing to count.
  if (result.message !== MESSAGE) return { message: result.message, problems: result.problems };
  return describeRequestProblems(MESSAGE, [...result.problems, ...formProblems]);
}

export interface RequestCheckOptions {
  /**
   * --validateUnchecked: operations served unchecked when their schemas cannot be compiled, by operationId or as
   * `METHOD /path` (the method in any case, the path as written). Any other such operation is refused.
   */
  unchecked?: readonly string[];
}

/** Whether the user named the operation among those to serve unchecked. */
function isNamed(model: ApiEndpoint['model'], unchecked: readonly string[]): boolean {
  const spoken = name(model);
  return unchecked.some((entry) => {
    const trimmed = entry.trim();
    if (trimmed === model.operationId || trimmed === model.name) return true;
    const [method = '', ...path] = trimmed.split(/\s+/);
    return `${method.toUpperCase()} ${path.join(' ')}` === spoken;
  });
}

/** The line an operation is written at (read again only on this way out), and the keyword ajv named, if any. */
function describeRefusal(endpoint: ApiEndpoint, why: string): string {
  const { file, pointer } = endpoint.model.source;
  let at = file;
  try {
    const line = readSourceFile(file, readFileSync(file, 'utf8')).locate(pointer)?.line;
    if (line !== undefined) at = `${file}:${line}`;
  } catch {
    // A file that changed since it was loaded: the file alone is said.
  }
  const keyword = /(?:^|\/)([$\w-]+) must /.exec(why)?.[1] ?? /reference (\S+)/.exec(why)?.[1];
  const named = endpoint.model.operationId ?? name(endpoint.model);
  return (
    `${at}: ${name(endpoint.model)}: --validate cannot check it: ${why}` +
    `${keyword === undefined ? '' : ` (keyword ${keyword})`}; fix the schema, or serve it unchecked with ` +
    `--validateUnchecked ${JSON.stringify(named)}`
  );
}

/**
 * Compiles, once per operation, the check of its calls that the generated services run too (compileInputCheck of
 * @restbus/infra): path, query and header parameters, and the JSON request body (each dialect's schemas as it means
 * them: adaptOpenApiSchema), a large body parsed a slice at a time; and, here only (the services do not check them
 * yet), URL-encoded and multipart form bodies (compileFormCheck). A cycle's `$ref`s resolve in its document. The
 * checks go onto the compiled endpoints (createRouteTable), so a reload swaps routes and checks in one assignment.
 * An operation whose schemas cannot be compiled (or expand past MAX_VALIDATED_NODES) throws OPENAPI_INVALID, naming
 * its file, line and what ajv said, unless `options.unchecked` names it: then it is in `skipped`, with the reason.
 */
export function compileRequestChecks(
  endpoints: readonly ApiEndpoint[],
  options: RequestCheckOptions = {},
): {
  checks: Map<ApiEndpoint, RequestCheck>;
  skipped: string[];
} {
  const unchecked = options.unchecked ?? [];
  const compilers = new Map<ApiEndpoint['api'], InputCompilers>();
  const checks = new Map<ApiEndpoint, RequestCheck>();
  const skipped: string[] = [];
  for (const endpoint of endpoints) {
    const { model, api } = endpoint;
    let ajv = compilers.get(api);
    if (!ajv) compilers.set(api, (ajv = createInputCompilers(api.dialect, undefined, api.schemaRoot)));
    try {
      // Compiling runs on the main thread, on start and on every reload: an operation too large to compile quickly
      // is not compiled (and said so) rather than stalling the gateway.
      const compiled = [
        ...LOCATIONS.flatMap((location) => model.parameters[location]),
        ...Object.entries(model.requestBody?.content ?? {})
          .filter(([type]) => isJsonMediaType(type))
          .map(([, media]) => media.schema),
        findFormSchema(model, FORM_TYPE),
        findFormSchema(model, MULTIPART_TYPE),
      ];
      if (countExpandedNodes(compiled, MAX_VALIDATED_NODES) > MAX_VALIDATED_NODES) {
        throw new Error(`its schemas expand to more than ${MAX_VALIDATED_NODES} nodes once their $refs are resolved`);
      }
      const check = compileInputCheck(model, ajv);
      const checkForm = compileFormCheck(model, ajv);
      checks.set(endpoint, async (request) => {
        const result = await check.inSlices(request);
        return toRefusal(result, checkForm ? await checkForm(request) : []);
      });
    } catch (err) {
      if (!isNamed(model, unchecked)) {
        throw new RestbusError('OPENAPI_INVALID', describeRefusal(endpoint, reason(err)), { cause: err });
      }
      skipped.push(`${name(model)}: served unchecked (--validateUnchecked): ${reason(err)}`);
    }
  }
  return { checks, skipped };
}
