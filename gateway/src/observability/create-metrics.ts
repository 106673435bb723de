import { readHeapLive } from '@restbus/infra';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface GatewayMetrics {
  readonly registry: Registry;
  /**
   * Counts a finished request and records its duration, under labels the API description bounds (label-call.ts):
   * never a value taken from the request as it came.
   */
  observe(route: string, method: string, status: string, seconds: number): void;
  /** Counts a failure to get a reply over NATS, by kind (the error code). */
  natsError(kind: string): void;
  /** Counts an operation's answer by who gave it: a service over NATS, or the mock (-m). */
  answered(route: string, method: string, by: 'service' | 'mock'): void;
  /** Counts a way a service's reply broke its operation's contract (--validateReplies), by operation and kind. */
  replyViolation(operation: string, kind: string): void;
  /** Counts a call its endpoint's policy refused (--auth), by the refusal's code. */
  refused(code: string): void;
  /** Counts a fetch of an issuer's key set (--auth verify), by how it went. */
  keySetFetched(outcome: 'ok' | 'failed'): void;
  /** Counts a bearer token looked up among those verified before (--auth verify): found (`hit`) or checked (`miss`). */
  tokenLookup(result: 'hit' | 'miss'): void;
  /** Counts a call of a rate-limited operation (x-restbus-rate-limit), admitted or limited, by operation. */
  rateLimitCall(operation: string, outcome: 'admitted' | 'limited'): void;
  /** Where the rate limits' client windows kept and gateways heard are read at each scrape. */
  watchRateLimits(read: () => { clients: number; gateways: number }): void;
  inFlight: Gauge;
}

/** Prometheus metrics of one gateway, on its own registry (so that tests can run several gateways). */
export function createMetrics(): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'restbus_gateway_' });
  // Watches the collections from now on, so that the first scrape after one tells the live heap.
  readHeapLive();
  const requests = new Counter({
    name: 'restbus_gateway_requests_total',
    help: 'HTTP requests by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'restbus_gateway_request_duration_seconds',
    help: 'HTTP request latency by route template and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const natsErrors = new Counter({
    name: 'restbus_gateway_nats_errors_total',
    help: 'Calls that got no usable reply over NATS, by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const answers = new Counter({
    name: 'restbus_gateway_answers_total',
    help: 'Answers to described operations by route template, method and who gave them: a service or the mock',
    labelNames: ['route', 'method', 'by'] as const,
    registers: [registry],
  });
  // Named as the issue and the README say, without the gateway_ infix: the reply is the service's, not the gateway's.
  const replyViolations = new Counter({
    name: 'restbus_reply_violations_total',
    help: "Ways services' replies broke their operation's contract, by operation (operationId or its made name) and kind (status, content-type, header, body)",
    labelNames: ['operation', 'kind'] as const,
    registers: [registry],
  });
  const auth = registerAuthMetrics(registry);
  const rateLimits = registerRateLimitMetrics(registry);
  registerHeapLive(registry);
  const inFlight = new Gauge({
    name: 'restbus_gateway_requests_in_flight',
    help: 'Requests being served',
    registers: [registry],
  });

  // Label lookups hash their arguments on every call; the children are cached per label set instead.
  const counters = new Map<string, { inc(): void }>();
  const histograms = new Map<string, { observe(value: number): void }>();
  const answerCounters = new Map<string, { inc(): void }>();
  return {
    registry,
    inFlight,
    observe(route, method, status, seconds) {
      const key = `${method} ${route}`;
      let histogram = histograms.get(key);
      if (!histogram) histograms.set(key, (histogram = duration.labels(route, method)));
      histogram.observe(seconds);
      const countKey = `${key} ${status}`;
      let counter = counters.get(countKey);
      if (!counter) counters.set(countKey, (counter = requests.labels(route, method, status)));
      counter.inc();
    },
    natsError(kind) {
      natsErrors.labels(kind).inc();
    },
    answered(route, method, by) {
      const key = `${method} ${route} ${by}`;
      let counter = answerCounters.get(key);
      if (!counter) answerCounters.set(key, (counter = answers.labels(route, method, by)));
      counter.inc();
    },
    replyViolation(operation, kind) {
      replyViolations.labels(operation, kind).inc();
    },
    refused(code) {
      auth.refusals.labels(code).inc();
    },
    keySetFetched(outcome) {
      auth.keySetFetches.labels(outcome).inc();
    },
    tokenLookup(result) {
      auth.tokenLookupsSinceScrape[result]++;
    },
    rateLimitCall: rateLimits.count,
    watchRateLimits: rateLimits.watch,
  };
}

/** The --auth counters: refusals by code, key set fetches by outcome, and the token cache's hits and misses. */
function registerAuthMetrics(registry: Registry) {
  const refusals = new Counter({
    name: 'restbus_gateway_auth_refused_total',
    help: "Calls refused by their operation's security (--auth), by code",
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const keySetFetches = new Counter({
    name: 'restbus_gateway_auth_key_set_fetches_total',
    help: "Fetches of issuers' key sets (--auth verify), by outcome",
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // Counted in plain numbers and added at each scrape: a labelled inc() hashes its labels, and this one runs on every
  // verified call.
  const tokenLookupsSinceScrape = { hit: 0, miss: 0 };
  new Counter({
    name: 'restbus_gateway_auth_token_cache_total',
    help: 'Bearer tokens found verified already (hit) or checked anew (miss), --auth verify',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      for (const result of ['hit', 'miss'] as const) {
        this.inc({ result }, tokenLookupsSinceScrape[result]);
        tokenLookupsSinceScrape[result] = 0;
      }
    },
  });
  return { refusals, keySetFetches, tokenLookupsSinceScrape };
}

/** The rate limits' counters and gauges: calls by operation and outcome, client windows kept, gateways heard. */
function registerRateLimitMetrics(registry: Registry) {
  const calls = new Counter({
    name: 'restbus_gateway_rate_limit_calls_total',
    help: 'Calls of rate-limited operations (x-restbus-rate-limit), by operation and outcome: admitted or limited (429)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [registry],
  });
  let read = (): { clients: number; gateways: number } => ({ clients: 0, gateways: 1 });
  new Gauge({
    name: 'restbus_gateway_rate_limit_clients',
    help: 'Client windows of the rate limits this gateway keeps count of (at most --rateLimitClients)',
    registers: [registry],
    collect() {
      this.set(read().clients);
    },
  });
  new Gauge({
    name: 'restbus_gateway_rate_limit_gateways',
    help: 'Gateways sharing the rate limits, this one included, as heard lately on NATS (the last count while NATS is away)',
    registers: [registry],
    collect() {
      this.set(read().gateways);
    },
  });
  // Label lookups hash their arguments on every call; the children are cached per label set (operations are the
  // API's, so the sets are bounded).
  const counters = new Map<string, { inc(): void }>();
  return {
    count(operation: string, outcome: 'admitted' | 'limited'): void {
      const key = `${operation} ${outcome}`;
      let counter = counters.get(key);
      if (!counter) counters.set(key, (counter = calls.labels(operation, outcome)));
      counter.inc();
    },
    watch(reader: () => { clients: number; gateways: number }): void {
      read = reader;
    },
  };
}

/** The heap in use after the last full collection, read at each scrape (readHeapLive). */
function registerHeapLive(registry: Registry): void {
  new Gauge({
    name: 'restbus_gateway_nodejs_heap_live_bytes',
    help: 'Heap in use just after the last full garbage collection: the data the process holds (0 before the first)',
    registers: [registry],
    collect() {
      this.set(readHeapLive() ?? 0);
    },
  });
}
