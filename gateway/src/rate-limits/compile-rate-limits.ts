import { createHash } from 'node:crypto';
import { formatPath, type SourceLocator } from '@restbus/openapi';
import type { ApiEndpoint } from '../openapi/endpoint';
import { refuseLoad, type LoadProblem } from '../openapi/refuse-load';
import type { CallPolicy } from '../security/call-policy';
import type { AllowanceLedger, LimitSlot } from './allowance-ledger';
import type { ClientReader } from './read-client';
import { RATE_LIMIT_EXTENSION, readRateLimits } from './rate-limit-extension';
import { RateLimitPolicy, type RateLimitCounter } from './rate-limit-policy';

/** What the limits of every load count with: the ledger, who a client is, the metrics. */
export interface RateLimitParts {
  ledger: AllowanceLedger;
  readClient: ClientReader;
  count: RateLimitCounter;
}

/**
 * The id a limit's counts are kept under: the same on every gateway that loads the same document, and on each
 * reload of it, so that the gateways share counts and a reload loses none. A document's own limit is one count for
 * all the operations that have none of their own (an API's quota); an operation's is its own.
 */
function identifySlot(endpoint: ApiEndpoint, scope: string, name: string): string {
  const { title, version } = endpoint.api;
  return createHash('sha256').update(`${title}\n${version}\n${scope}\n${name}`).digest('base64url').slice(0, 16);
}

/** The limits each limited endpoint counts against, and where a limit cannot be applied. */
export interface EndpointLimits {
  limited: Map<ApiEndpoint, LimitSlot[]>;
  problems: LoadProblem[];
}

/**
 * Each limited endpoint's limits (x-restbus-rate-limit on its operation, else on its document; `[]` on the operation
 * lifts the document's), and a problem naming the file and member of each limit that cannot be applied: what the
 * gateway refuses at load, and what `--check` says.
 */
export function readEndpointLimits(endpoints: readonly ApiEndpoint[]): EndpointLimits {
  const limited = new Map<ApiEndpoint, LimitSlot[]>();
  const problems: LoadProblem[] = [];
  for (const endpoint of endpoints) {
    const own = Object.hasOwn(endpoint.model.extensions, RATE_LIMIT_EXTENSION);
    const value = own ? endpoint.model.extensions[RATE_LIMIT_EXTENSION] : endpoint.api.extensions[RATE_LIMIT_EXTENSION];
    if (value === undefined) continue;
    const pointer = own ? [...endpoint.model.source.pointer, RATE_LIMIT_EXTENSION] : [RATE_LIMIT_EXTENSION];
    const file = own ? endpoint.model.source.file : endpoint.api.file;
    const limits = readRateLimits(value);
    if (typeof limits === 'string') {
      // A document's limit is said once, not once per operation that shares it.
      if (!problems.some((one) => one.file === file && formatPath(one.pointer) === formatPath(pointer)))
        problems.push({ file, pointer, message: limits });
      continue;
    }
    if (limits.length === 0) continue;
    const scope = own ? `${endpoint.model.method} ${endpoint.model.path}` : '*';
    limited.set(
      endpoint,
      limits.map((limit) => ({ limit, id: identifySlot(endpoint, scope, limit.name) })),
    );
  }
  return { limited, problems };
}

/** Each limited endpoint's policy, or a load error naming the file, line and member of each limit it cannot apply. */
export async function compileRateLimits(
  endpoints: readonly ApiEndpoint[],
  parts: RateLimitParts,
  locate: SourceLocator,
): Promise<Map<ApiEndpoint, CallPolicy>> {
  const { limited, problems } = readEndpointLimits(endpoints);
  if (problems.length > 0) throw await refuseLoad('the rate limits of the API cannot be applied', problems, locate);
  const { ledger, readClient, count } = parts;
  return new Map(
    [...limited].map(([endpoint, slots]) => [
      endpoint,
      new RateLimitPolicy(endpoint.model.name, slots, ledger, readClient, count),
    ]),
  );
}
