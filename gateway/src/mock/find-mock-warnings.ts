import { validateHeaderName } from 'node:http';
import { formatPath, type ApiResponse, type Diagnostic, type JsonSchema, type SourceLocator } from '@restbus/openapi';
import type { ApiEndpoint } from '../openapi/endpoint';
import { canCarry, listUnwrittenTypes, readHeaderValue, isXmlMediaType } from './build-mock-response';
import { createSchemaSampler, SAMPLE_LIMITS, type SampleLimits, type SchemaSampler } from './create-schema-sampler';
import { listDeclaredHeaders } from './list-declared-headers';

export interface MockWarningOptions {
  limits?: SampleLimits;
  /**
   * Milliseconds of sampling the whole check may take (it yields to the event loop between operations); past it the
   * remaining operations are left to be checked when they are asked for, and one warning says so. Default 2,000.
   */
  budgetMs?: number;
  /** Places each warning in its file (the loaded document has no positions); without it they name only the path. */
  locate?: SourceLocator;
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const isHeaderName = (name: string): boolean => {
  try {
    validateHeaderName(name);
    return true;
  } catch {
    return false;
  }
};

/** `"X-Bad\r\nName"`, escaped and cut, as a diagnostic quotes a name. */
const show = (name: string): string => JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);

/**
 * What `-m` cannot answer as a document describes, as load warnings: a media type with no example written in it
 * (only an object for `application/xml`: a call accepting only that type is answered 406), a body or header value
 * that a schema would build past the sampler's bound (SAMPLE_LIMITS: `minItems: 1e9`, nested arrays, a huge
 * `minLength`; at request time the operation answers `500 MOCK_UNAVAILABLE`, or leaves the header out), and a
 * response header HTTP cannot carry (a name with CR/LF or a space, a value with control characters; the mock leaves
 * it out). Every response of every operation is checked, not only the one answered by default: `Prefer: code=` can
 * ask for any. Each sample is bounded in work (about 25 ms at most), the check yields to the event loop between
 * operations and stops after `budgetMs`, so a reload never stalls the gateway for long.
 */
export async function findMockWarnings(
  endpoints: readonly ApiEndpoint[],
  options: MockWarningOptions = {},
): Promise<Diagnostic[]> {
  const limits = options.limits ?? SAMPLE_LIMITS;
  const budgetMs = options.budgetMs ?? 2000;
  const sampler = createSchemaSampler(limits);
  const diagnostics: Diagnostic[] = [];
  /** Each diagnostic's path as parts, for the locator. */
  const where: Array<Array<string | number>> = [];
  const bound = `the bound is ${limits.maxBytes} bytes and ${limits.maxReads} steps`;
  const started = performance.now();
  for (const [index, endpoint] of endpoints.entries()) {
    if (endpoint.model.static) continue;
    if (performance.now() - started > budgetMs) {
      diagnostics.push({
        severity: 'warning',
        file: endpoint.file,
        path: '',
        message: `-m checked the answers of ${index} of ${endpoints.length} operations within ${budgetMs} ms; the others are checked when they are asked for`,
      });
      where.push([]);
      break;
    }
    const warn = (path: Array<string | number>, message: string): void => {
      const parts = ['paths', endpoint.model.path, endpoint.model.method, 'responses', ...path];
      diagnostics.push({ severity: 'warning', file: endpoint.file, path: formatPath(parts), message });
      where.push(parts);
    };
    for (const response of endpoint.model.responses) {
      const { key } = response;
      checkHeaders(endpoint, response, sampler, (name, message) => warn([key, 'headers', name], message));
      for (const type of listUnwrittenTypes(endpoint, response, sampler)) {
        warn(
          endpoint.api.dialect === '2.0' ? [key] : [key, 'content', type],
          `-m has no example written in ${type} (${isXmlMediaType(type) ? 'an object whose keys are not all XML element names' : 'an object'} is no ${type}): a call that accepts only ${type} is answered 406 NOT_ACCEPTABLE. Give it an example written in it`,
        );
      }
      for (const [where, schema] of listSampledSchemas(endpoint, response)) {
        const result = sampler.sample(schema, endpoint.api.schemaRoot);
        if ('tooLarge' in result) {
          warn(
            [key, ...where],
            `-m cannot build a body from this schema: it would be ${result.tooLarge} (${bound}); the operation answers 500 MOCK_UNAVAILABLE when this response is asked for. Give it an example`,
          );
        }
      }
    }
    await yieldToLoop();
  }
  if (options.locate) {
    for (const [index, diagnostic] of diagnostics.entries()) {
      const position = await options.locate(diagnostic.file, where[index]);
      if (position) diagnostics[index] = { ...diagnostic, ...position };
    }
  }
  return diagnostics;
}

/** The schemas `-m` samples a body from: those of media types with no example (Swagger 2.0: one per response). */
function listSampledSchemas(endpoint: ApiEndpoint, response: ApiResponse): Array<[string[], JsonSchema]> {
  const sampled = Object.entries(response.content).flatMap(([type, media]): Array<[string[], JsonSchema]> =>
    media.examples.length > 0 || media.schema === undefined ? [] : [[['content', type, 'schema'], media.schema]],
  );
  // Swagger 2 writes one schema for every type the response is produced in.
  return endpoint.api.dialect === '2.0' ? sampled.slice(0, 1).map(([, schema]) => [['schema'], schema]) : sampled;
}

function checkHeaders(
  endpoint: ApiEndpoint,
  response: ApiResponse,
  sampler: SchemaSampler,
  warn: (name: string, message: string) => void,
): void {
  for (const header of listDeclaredHeaders(response)) {
    const { name } = header;
    if (name.toLowerCase() === 'content-type') continue;
    if (!isHeaderName(name)) {
      warn(name, `the header name ${show(name)} cannot be sent over HTTP: -m leaves the header out`);
      continue;
    }
    const value = readHeaderValue(endpoint, header, sampler);
    if ('tooLarge' in value) {
      warn(
        name,
        `-m cannot build this header's value from its schema: it would be ${value.tooLarge}; it leaves the header out`,
      );
    } else if (value.text !== undefined && !canCarry(name, value.text)) {
      warn(name, `the value of ${show(name)} cannot be sent over HTTP (a control character): -m leaves the header out`);
    }
  }
}
