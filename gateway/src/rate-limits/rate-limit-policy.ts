import { RestbusError } from '@restbus/infra';
import type { CallPolicy, PolicyCall } from '../security/call-policy';
import type { AllowanceLedger, LimitSlot, Verdict } from './allowance-ledger';
import type { ClientReader } from './read-client';

/** Counts each limited operation's calls, admitted or limited (the metrics). */
export type RateLimitCounter = (operation: string, outcome: 'admitted' | 'limited') => void;

/** `"name";q=<limit>;w=<seconds>` for each limit: the IETF draft's RateLimit-Policy field, the same for every call. */
function formatPolicies(slots: readonly LimitSlot[]): string {
  return slots.map(({ limit }) => `"${limit.name}";q=${limit.limit};w=${limit.windowSeconds}`).join(', ');
}

/**
 * An operation's rate limits (x-restbus-rate-limit), run after its security: each call counts against every limit,
 * for the client the limit's `by` names, and is refused `429 RATE_LIMITED` when one has no calls left, with
 * `Retry-After` (the seconds until that window ends). Every answer of the operation carries the IETF draft's
 * `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers), so that clients can pace
 * themselves before they are refused. A refused call never reaches the service.
 */
export class RateLimitPolicy implements CallPolicy {
  private readonly policyField: string;

  constructor(
    private readonly operation: string,
    private readonly slots: readonly LimitSlot[],
    private readonly ledger: AllowanceLedger,
    private readonly readClient: ClientReader,
    private readonly count: RateLimitCounter,
  ) {
    this.policyField = formatPolicies(slots);
  }

  admit(call: PolicyCall): void | Promise<void> {
    // A client whose calls this gateway holds is decided at once: the busiest path makes no promise.
    const decided: Verdict[] = [];
    let waiting: Array<Verdict | Promise<Verdict>> | undefined;
    for (const slot of this.slots) {
      const verdict = this.ledger.admit(slot, this.readClient(slot.limit.by, call));
      if (waiting) waiting.push(verdict);
      else if (verdict instanceof Promise) waiting = [...decided, verdict];
      else decided.push(verdict);
    }
    if (!waiting) return this.decide(call, decided);
    return Promise.all(waiting).then((settled) => this.decide(call, settled));
  }

  private decide(call: PolicyCall, verdicts: readonly Verdict[]): void {
    let field = '';
    for (let i = 0; i < verdicts.length; i++) {
      const { remaining, resetSeconds } = verdicts[i];
      field += `${i > 0 ? ', ' : ''}"${this.slots[i].limit.name}";r=${remaining};t=${resetSeconds}`;
    }
    const headers = { 'ratelimit-policy': this.policyField, ratelimit: field };
    const refused = verdicts.findIndex((verdict) => !verdict.admitted);
    if (refused < 0) {
      this.count(this.operation, 'admitted');
      if (call.headers) Object.assign(call.headers, headers);
      return;
    }
    this.count(this.operation, 'limited');
    const { limit } = this.slots[refused];
    const retryAfter = String(verdicts[refused].resetSeconds);
    if (verdicts[refused].unavailable) {
      throw new RestbusError('RATE_LIMIT_UNAVAILABLE', 'the calls of this operation cannot be counted just now', {
        headers: { ...headers, 'retry-after': '1' },
      });
    }
    throw new RestbusError(
      'RATE_LIMITED',
      `too many calls: "${limit.name}" allows ${limit.limit} every ${limit.windowSeconds} s`,
      { headers: { ...headers, 'retry-after': retryAfter } },
    );
  }
}
