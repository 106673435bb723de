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
} from '@restbus/infra';
import type { ApiEndpoint } from '../openapi/endpoint';
import { compileFormCheck, findFormSchema, FORM_TYPE, MULTIPART_TYPE, type FormCheck } from './compile-form-check';
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

/**
 * Compiles, once per operation, the check of its calls that the generated services run too (compileInputCheck of
 * @restbus/infra): path, query and header parameters, and the JSON request body (OAS 3.1 schemas as JSON Schema
 * 2020-12, the others as draft-07 with OpenAPI's `nullable`), a large body parsed a slice at a time; and, here only
 * (the services do not check them yet), URL-encoded and multipart form bodies (compileFormCheck). The checks go
 * onto the compiled endpoints (createRouteTable), so a reload swaps routes and checks in one assignment. `skipped`:
 * operations left unchecked because their schemas do not compile (e.g. a cyclic `$ref`), with the reason.
 */
export function compileRequestChecks(endpoints: readonly ApiEndpoint[]): {
  checks: Map<ApiEndpoint, RequestCheck>;
  skipped: string[];
} {
  const compilers = new Map<string, InputCompilers>();
  const checks = new Map<ApiEndpoint, RequestCheck>();
  const skipped: string[] = [];
  for (const endpoint of endpoints) {
    const { model } = endpoint;
    const dialect = endpoint.api.dialect === '3.1' ? '3.1' : '3.0';
    let ajv = compilers.get(dialect);
    if (!ajv) compilers.set(dialect, (ajv = createInputCompilers(dialect)));
    try {
      // Compiling runs on the main thread, on start and on every reload: an operation too large to compile quickly
      // is left unvalidated (and said so) rather than stalling the gateway.
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
      let checkForm: FormCheck | undefined;
      try {
        checkForm = compileFormCheck(model, ajv);
      } catch (err) {
        // A form schema ajv cannot compile (a `$ref` to nowhere) leaves the form unchecked, not the parameters.
        skipped.push(`${name(model)}: its form body is left unchecked: ${reason(err)}`);
      }
      checks.set(endpoint, async (request) => {
        const result = await check.inSlices(request);
        return toRefusal(result, checkForm ? await checkForm(request) : []);
      });
    } catch (err) {
      skipped.push(`${name(model)}: ${reason(err)}`);
    }
  }
  return { checks, skipped };
}
