/** One request of a load run, as the client saw it. */
export interface Outcome {
  /** Milliseconds since the run started, when the request was sent. */
  at: number;
  kind: 'read' | 'write';
  /** HTTP status; 0 when no answer came (connection refused or reset, or the client's own timeout). */
  status: number;
  retryAfter: boolean;
  /** A read the service answered from its copy while the store could not confirm it (X-Restbus-Stale). */
  stale?: boolean;
  /** For a write answered 2xx: the id it stored. */
  storedId?: string;
  ms: number;
  /** The W3C trace id it was sent with: the gateway and the services log it, so a failure can be found in their logs. */
  traceId: string;
  /** Why no answer came (status 0): the client's error and its cause, e.g. `TypeError: other side closed`. */
  error?: string;
}

export interface LoadOptions {
  baseUrl: string;
  /** Requests started per second, half reads and half writes. */
  ratePerSecond: number;
  durationMs: number;
  /** The client gives up on a request after this long (status 0). */
  timeoutMs?: number;
  /** Called once, this many ms into the run (a fault to inject); the run goes on meanwhile. */
  faultAtMs?: number;
  fault?: () => Promise<void>;
  /**
   * The run ends this long after the fault's promise settled (a rolling restart done), or at durationMs if that comes
   * first: the load covers the whole fault however long a loaded machine makes it, and stops soon after.
   */
  afterFaultMs?: number;
  /**
   * Writes overwrite the persons `load-<run>-0` … `load-<run>-<n-1>` in turn instead of each storing a new person:
   * the data stays the same size however long the run (a soak measures memory), and each write's number is in what
   * it stores, so that the store can be checked against the last acknowledged write of every person.
   */
  overwriteIds?: number;
}

export interface LoadRun {
  outcomes: Outcome[];
  /** When the run started (epoch ms): `at` of an outcome counts from here. */
  startedAt: number;
  /** When the fault was injected, ms into the run. */
  faultAt?: number;
  /** Each person written: the number of its last write acknowledged with 2xx (what the store must hold, or later). */
  acknowledged: Map<string, number>;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

interface Answer {
  status: number;
  retryAfter: boolean;
  stale: boolean;
  error?: string;
}

/** fetch's error and what lies under it (undici puts the socket's error in `cause`), on one line. */
export function describeFetchError(err: unknown): string {
  const chain: string[] = [];
  // Duck-typed: undici's errors come from another realm than a jest test's `Error`.
  for (let at: unknown = err; at !== undefined && chain.length < 4; at = (at as { cause?: unknown }).cause) {
    const { name, code, message } = (at ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
    if (typeof message !== 'string') {
      chain.push(String(at));
      break;
    }
    chain.push(`${typeof name === 'string' ? name : 'Error'}${typeof code === 'string' ? ` ${code}` : ''}: ${message}`);
  }
  return chain.join(' <- ');
}

async function send(url: string, init: RequestInit, timeoutMs: number, traceId: string): Promise<Answer> {
  try {
    const headers = { ...(init.headers as Record<string, string>), traceparent: `00-${traceId}-${'1'.repeat(16)}-01` };
    const response = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return {
      status: response.status,
      retryAfter: response.headers.has('retry-after'),
      stale: response.headers.get('x-restbus-stale') === 'true',
    };
  } catch (err) {
    return { status: 0, retryAfter: false, stale: false, error: describeFetchError(err) };
  }
}

/**
 * Sends a fixed rate of requests for a fixed time, whatever the answers: reads (`GET /persons/{id}` of a person
 * stored before, or the list) and writes (`PUT /persons/{id}` of a new person each time, or of one of
 * `overwriteIds` persons in turn; every acknowledged write can be looked for afterwards). Bounded: rate × duration
 * requests, each with a timeout.
 */
export async function runLoad(options: LoadOptions, known: string[]): Promise<LoadRun> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const outcomes: Outcome[] = [];
  const inFlight: Array<Promise<void>> = [];
  const started = Date.now();
  const interval = 1000 / options.ratePerSecond;
  const total = Math.floor((options.durationMs / 1000) * options.ratePerSecond);
  const acknowledged = new Map<string, number>();
  const run: LoadRun = { outcomes, startedAt: started, acknowledged };
  let faultDone: Promise<void> | undefined;
  let faultSettledAt: number | undefined;
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (faultSettledAt !== undefined && Date.now() >= faultSettledAt + options.afterFaultMs!) break;
    const at = Date.now() - started;
    if (!faultDone && options.fault && at >= (options.faultAtMs ?? Infinity)) {
      run.faultAt = at;
      faultDone = options.fault();
      if (options.afterFaultMs !== undefined) {
        const settled = (): void => void (faultSettledAt = Date.now());
        faultDone.then(settled, settled);
      }
    }
    const write = i % 2 === 1;
    inFlight.push(
      (async () => {
        const begun = Date.now();
        const traceId = `${started.toString(16)}${i.toString(16).padStart(8, '0')}`.padStart(32, '0');
        if (write) {
          // The same person comes back every overwriteIds writes: far apart enough (at 20 writes/s and 2,000
          // persons, 100 s) that two writes of one person are never in flight together.
          const id = `load-${started}-${options.overwriteIds ? ((i - 1) / 2) % options.overwriteIds : i}`;
          const { status, retryAfter, stale, error } = await send(
            `${options.baseUrl}/persons/${id}`,
            {
              method: 'PUT',
              headers: JSON_HEADERS,
              body: JSON.stringify({ id, familyName: 'Load', givenName: `${i}` }),
            },
            timeoutMs,
            traceId,
          );
          if (status >= 200 && status < 300) {
            if (!acknowledged.has(id)) known.push(id);
            // The newest write acknowledged: on a starved machine two writes of one person can be in flight
            // together, and the older one's answer come last.
            acknowledged.set(id, Math.max(i, acknowledged.get(id) ?? -1));
          }
          outcomes.push({
            stale,
            at,
            kind: 'write',
            status,
            retryAfter,
            ms: Date.now() - begun,
            traceId,
            ...(status === 200 ? { storedId: id } : {}),
            ...(error === undefined ? {} : { error }),
          });
        } else {
          const path = i % 4 === 0 || known.length === 0 ? '/persons?limit=10' : `/persons/${known[i % known.length]}`;
          const { status, retryAfter, stale, error } = await send(
            `${options.baseUrl}${path}`,
            { method: 'GET' },
            timeoutMs,
            traceId,
          );
          outcomes.push({
            at,
            kind: 'read',
            status,
            retryAfter,
            stale,
            ms: Date.now() - begun,
            traceId,
            ...(error === undefined ? {} : { error }),
          });
        }
      })(),
    );
  }
  await Promise.all(inFlight);
  await faultDone;
  outcomes.sort((a, b) => a.at - b.at);
  return run;
}

export interface LoadSummary {
  reads: number;
  failedReads: number;
  /** Reads answered from a service's copy, marked stale. */
  staleReads: number;
  writes: number;
  failedWrites: number;
  /** Failed writes answered other than 503 with Retry-After. */
  writesFailedOtherwise: number;
  p50: number;
  p99: number;
}

const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

export function summarizeLoad(outcomes: readonly Outcome[]): LoadSummary {
  const ok = (outcome: Outcome): boolean => outcome.status >= 200 && outcome.status < 300;
  const reads = outcomes.filter((outcome) => outcome.kind === 'read');
  const writes = outcomes.filter((outcome) => outcome.kind === 'write');
  const failedWrites = writes.filter((outcome) => !ok(outcome));
  return {
    reads: reads.length,
    failedReads: reads.filter((outcome) => !ok(outcome)).length,
    staleReads: reads.filter((outcome) => outcome.stale).length,
    writes: writes.length,
    failedWrites: failedWrites.length,
    writesFailedOtherwise: failedWrites.filter((outcome) => outcome.status !== 503 || !outcome.retryAfter).length,
    p50: percentile(
      outcomes.map((outcome) => outcome.ms),
      50,
    ),
    p99: percentile(
      outcomes.map((outcome) => outcome.ms),
      99,
    ),
  };
}

/** Requests and failures per second of the run: the timeline around a fault. */
export function toTimeline(
  outcomes: readonly Outcome[],
): Array<{ second: number; requests: number; errors: number; p99: number }> {
  const seconds = new Map<number, Outcome[]>();
  for (const outcome of outcomes) {
    const second = Math.floor(outcome.at / 1000);
    seconds.set(second, [...(seconds.get(second) ?? []), outcome]);
  }
  return [...seconds.entries()]
    .sort(([a], [b]) => a - b)
    .map(([second, group]) => ({
      second,
      requests: group.length,
      errors: group.filter((outcome) => outcome.status < 200 || outcome.status >= 300).length,
      p99: percentile(
        group.map((outcome) => outcome.ms),
        99,
      ),
    }));
}

export function formatTimeline(timeline: ReturnType<typeof toTimeline>, faultAt?: number): string {
  const lines = ['second  requests  errors  p99 ms'];
  for (const row of timeline) {
    const mark = faultAt !== undefined && Math.floor(faultAt / 1000) === row.second ? '  <- fault' : '';
    lines.push(
      `${String(row.second).padStart(6)}  ${String(row.requests).padStart(8)}  ${String(row.errors).padStart(6)}  ${String(row.p99).padStart(6)}${mark}`,
    );
  }
  return lines.join('\n');
}

/** Every person the list holds (followed page by page through its Link headers), by id. */
async function listPersons(baseUrl: string): Promise<Map<string, { givenName?: string }>> {
  const listed = new Map<string, { givenName?: string }>();
  let next: string | undefined = '?limit=1000';
  for (let page = 0; next !== undefined && page < 1000; page++) {
    const response: Response = await fetch(`${baseUrl}/persons${next}`);
    if (response.status !== 200) throw new Error(`GET /persons${next} answered ${response.status}`);
    for (const person of (await response.json()) as Array<{ id: string; givenName?: string }>)
      listed.set(person.id, person);
    next = /^<(\?[^>]*)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return listed;
}

/** Every id in `ids` that the list does not hold. */
export async function findMissing(baseUrl: string, ids: readonly string[]): Promise<string[]> {
  const listed = await listPersons(baseUrl);
  return ids.filter((id) => !listed.has(id));
}

/**
 * Every person whose stored write is older than the last one acknowledged (or who is not stored at all): a lost
 * write. A later write than the acknowledged one is fine: its call failed or timed out after the store took it.
 */
export async function findLostWrites(baseUrl: string, acknowledged: ReadonlyMap<string, number>): Promise<string[]> {
  const listed = await listPersons(baseUrl);
  return [...acknowledged].filter(([id, write]) => !(Number(listed.get(id)?.givenName) >= write)).map(([id]) => id);
}
