import { RestbusError, refuseRequest, type CallerIdentity } from '@restbus/infra';
import type { CallPolicy, PolicyCall } from './call-policy';
import type { SchemeCheck, SchemeOutcome } from './scheme-check';

/** One scheme of a requirement, with the scopes it must grant. */
export interface SchemeUse {
  check: SchemeCheck;
  scopes: readonly string[];
}

/** One requirement object of `security`: all of its schemes must pass. `[]` (`{}`) lets anyone in. */
export type Requirement = readonly SchemeUse[];

type Verified = Extract<SchemeOutcome, { kind: 'verified' }>;

/** The identity the service is told of: the requirement's schemes, the first subject and issuer, every scope. */
function toIdentity(requirement: Requirement, outcomes: readonly Verified[]): CallerIdentity {
  const identity: CallerIdentity = {
    subject: outcomes.find((outcome) => outcome.subject !== '')?.subject ?? '',
    schemes: requirement.map((use) => use.check.name),
    scopes: [...new Set(outcomes.flatMap((outcome) => [...outcome.scopes]))].sort(),
    claims: Object.assign({}, ...outcomes.map((outcome) => outcome.claims)) as Record<string, unknown>,
  };
  const issuer = outcomes.find((outcome) => outcome.issuer !== undefined)?.issuer;
  return issuer === undefined ? identity : { ...identity, issuer };
}

/**
 * An operation's `security`, as OpenAPI means it: any one requirement admits the call (OR), every scheme of it must
 * pass (AND), with every scope it lists. A call no requirement admits is refused with what the client can act on:
 * `403 INSUFFICIENT_SCOPE` when its credentials passed but lack scopes, `503 AUTH_UNAVAILABLE` when they could not be
 * checked, `401 TOKEN_INVALID`/`TOKEN_EXPIRED` when they were refused, else `401 UNAUTHORIZED`; each with the
 * challenges of the schemes that would do. Which check a refused token failed is logged, never answered.
 */
export class SecurityPolicy implements CallPolicy {
  private readonly requirements: readonly Requirement[];
  /** The identity a verified credential of the first requirement gives, made once per credential (a busy client). */
  private readonly identities = new WeakMap<Verified, CallerIdentity>();

  /**
   * An empty requirement (`{}`: credentials optional) is tried last, wherever it is written: a caller who sends
   * credentials another requirement accepts is still told of.
   */
  constructor(requirements: readonly Requirement[]) {
    this.requirements = [...requirements].sort((a, b) => Number(a.length === 0) - Number(b.length === 0));
  }

  admit(call: PolicyCall): void | Promise<void> {
    if (this.requirements.length === 0) return;
    const [first] = this.requirements;
    if (first.length !== 1) return this.admitByAny(call);
    // The common case, one scheme alone (`[{oidc: [read]}]`): a token verified before is admitted at once, with no
    // promise and none of the general path's lists.
    const [{ check }] = first;
    const outcome = check.check(call);
    if (!(outcome instanceof Promise)) {
      return this.admitByFirst(call, outcome) ? undefined : this.admitByAny(call, { check, outcome });
    }
    return outcome.then((found) =>
      this.admitByFirst(call, found) ? undefined : this.admitByAny(call, { check, outcome: found }),
    );
  }

  /**
   * Whether the first requirement, one scheme alone, admits the call by its outcome. An outcome it admitted once has
   * its identity kept, so a busy client's calls are admitted by one lookup, scopes compared once.
   */
  private admitByFirst(call: PolicyCall, outcome: SchemeOutcome): boolean {
    if (outcome.kind !== 'verified') return false;
    let identity = this.identities.get(outcome);
    if (!identity) {
      const [[{ scopes }]] = this.requirements;
      if (!scopes.every((scope) => outcome.scopes.has(scope))) return false;
      // Frozen: the request message serializes it once for all of its calls (encodeRequestMessage).
      identity = Object.freeze(toIdentity(this.requirements[0], [outcome]));
      this.identities.set(outcome, identity);
    }
    call.user = identity;
    return true;
  }

  /** The general path: every requirement in turn, `seen` the outcome of a scheme checked already. */
  private async admitByAny(call: PolicyCall, seen?: { check: SchemeCheck; outcome: SchemeOutcome }): Promise<void> {
    // Each scheme is checked once a call, whichever requirements name it.
    const outcomes = new Map<SchemeCheck, Promise<SchemeOutcome>>();
    if (seen) outcomes.set(seen.check, Promise.resolve(seen.outcome));
    const outcomeOf = (check: SchemeCheck): Promise<SchemeOutcome> => {
      let outcome = outcomes.get(check);
      if (!outcome) outcomes.set(check, (outcome = Promise.resolve(check.check(call))));
      return outcome;
    };
    const lacking: Array<{ check: SchemeCheck; scopes: readonly string[] }> = [];
    const refused: Array<Extract<SchemeOutcome, { kind: 'invalid' }>> = [];
    let unavailable: RestbusError | undefined;
    for (const requirement of this.requirements) {
      // Credentials are optional here, but ones that were sent and refused are answered as refused (RFC 6750 §3.1):
      // a client whose token expired learns it rather than being served as nobody.
      if (requirement.length === 0 && refused.length === 0) return;
      if (requirement.length === 0) continue;
      const found = await Promise.all(requirement.map((use) => outcomeOf(use.check)));
      const verified = found.filter((outcome): outcome is Verified => outcome.kind === 'verified');
      for (const outcome of found) {
        if (outcome.kind === 'invalid') refused.push(outcome);
        if (outcome.kind === 'unavailable') unavailable ??= outcome.error;
      }
      if (verified.length < requirement.length) continue;
      const short = requirement.filter((use, i) => use.scopes.some((scope) => !verified[i].scopes.has(scope)));
      if (short.length === 0) {
        call.user = toIdentity(requirement, verified);
        return;
      }
      lacking.push(...short.map(({ check, scopes }) => ({ check, scopes })));
    }
    throw await this.refusal(lacking, refused, unavailable, outcomes);
  }

  private async refusal(
    lacking: ReadonlyArray<{ check: SchemeCheck; scopes: readonly string[] }>,
    refused: ReadonlyArray<Extract<SchemeOutcome, { kind: 'invalid' }>>,
    unavailable: RestbusError | undefined,
    outcomes: ReadonlyMap<SchemeCheck, Promise<SchemeOutcome>>,
  ): Promise<RestbusError> {
    if (lacking.length > 0) {
      const challenges = lacking.map(({ check, scopes }) => check.challenge({ error: 'insufficient_scope', scopes }));
      return new RestbusError('INSUFFICIENT_SCOPE', 'the credentials do not grant every scope the operation needs', {
        headers: { 'www-authenticate': [...new Set(challenges)] },
      });
    }
    if (unavailable) return unavailable;
    const challenges = new Set<string>();
    for (const requirement of this.requirements) {
      for (const { check } of requirement) {
        const outcome = await outcomes.get(check);
        challenges.add(check.challenge(outcome?.kind === 'invalid' ? { error: 'invalid_token' } : undefined));
      }
    }
    const headers = { 'www-authenticate': [...challenges] };
    if (refused.length === 0) {
      return refuseRequest('credentialsMissing', 'the operation needs credentials the request does not carry', {
        headers,
      });
    }
    const expired = refused.every((outcome) => outcome.code === 'TOKEN_EXPIRED');
    return expired
      ? new RestbusError('TOKEN_EXPIRED', 'the token has expired', { headers })
      : new RestbusError('TOKEN_INVALID', 'the credentials are not valid', { headers });
  }
}
