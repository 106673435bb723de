/**
 * Who answers a kind of call now: the services over NATS (`service`), the services and the mock when none answers
 * (`service-or-mock`), the mock alone (`mock`), or nobody (`unavailable`: `503 NATS_UNAVAILABLE`).
 */
export type Answerer = 'service' | 'service-or-mock' | 'mock' | 'unavailable';

/** The body of `GET /-/ready`; its status is 200 when `status` is `ready`, 503 otherwise. */
export interface Readiness {
  status: 'ready' | 'not ready';
  /** With -u: whether the NATS link is up now. */
  nats?: 'connected' | 'disconnected';
  /** With -m: who answers the safe methods (reads) and the others (writes) of a described operation now. */
  answering?: { reads: Answerer; writes: Answerer };
}

export interface ReadinessDeps {
  /** -u: calls are forwarded over NATS. */
  forwarding: boolean;
  /** -m: the mock answers (alone, or with -u when no service does). */
  mock: boolean;
  /** --mockWrites: with -u -m, the mock answers the unsafe methods too. */
  mockWrites: boolean;
  isConnected(): boolean;
  isShuttingDown(): boolean;
}

/**
 * What the gateway will do with a call now, as `/-/ready` says it. Ready means it can answer: with -u once NATS is
 * connected, with -m (hybrid included) as soon as it listens, since the mock answers when no service can; never
 * while shutting down. A load balancer keeps sending to a hybrid gateway whose NATS is away, and `nats` and
 * `answering` tell a person what those calls get meanwhile.
 */
export function createReadiness(deps: ReadinessDeps): () => Readiness {
  const { forwarding, mock, mockWrites } = deps;
  return () => {
    const connected = forwarding && deps.isConnected();
    const canAnswer = !forwarding || connected || mock;
    const readiness: Readiness = { status: canAnswer && !deps.isShuttingDown() ? 'ready' : 'not ready' };
    if (forwarding) readiness.nats = connected ? 'connected' : 'disconnected';
    if (mock) {
      if (!forwarding) readiness.answering = { reads: 'mock', writes: 'mock' };
      else if (connected) {
        readiness.answering = { reads: 'service-or-mock', writes: mockWrites ? 'service-or-mock' : 'service' };
      } else readiness.answering = { reads: 'mock', writes: mockWrites ? 'mock' : 'unavailable' };
    }
    return readiness;
  };
}
