import type { IncomingMessage } from 'node:http';
import { RestbusError } from '@restbus/infra';
import type { PolicyCall } from './call-policy';
import type { SchemeCheck, SchemeOutcome } from './scheme-check';
import { SecurityPolicy, type Requirement } from './security-policy';

/** A scheme whose check finds what the test says, and counts how often it was asked. */
class FixedCheck implements SchemeCheck {
  checked = 0;
  constructor(
    readonly name: string,
    private readonly outcome: SchemeOutcome,
  ) {}
  async check(): Promise<SchemeOutcome> {
    this.checked++;
    return this.outcome;
  }
  challenge(refusal?: { error: string; scopes?: readonly string[] }): string {
    return `${this.name}${refusal ? ` error=${refusal.error}` : ''}${refusal?.scopes ? ` scope=${refusal.scopes.join(' ')}` : ''}`;
  }
}

const verified = (subject: string, scopes: string[] = [], claims: Record<string, unknown> = {}): SchemeOutcome => ({
  kind: 'verified',
  subject,
  scopes: new Set(scopes),
  issuer: 'https://issuer.test',
  claims,
});
const ABSENT: SchemeOutcome = { kind: 'absent' };
const INVALID: SchemeOutcome = { kind: 'invalid', code: 'TOKEN_INVALID', reason: 'signature' };
const EXPIRED: SchemeOutcome = { kind: 'invalid', code: 'TOKEN_EXPIRED', reason: 'expired' };
const UNAVAILABLE: SchemeOutcome = {
  kind: 'unavailable',
  error: new RestbusError('AUTH_UNAVAILABLE', 'the credentials cannot be checked just now'),
};

const newCall = (): PolicyCall => ({ req: { headers: {} } as IncomingMessage, query: '' });
const use = (check: SchemeCheck, scopes: string[] = []) => ({ check, scopes });

/** What the policy did with a call: admitted (with the identity it left) or refused (code, challenges). */
async function admit(requirements: Requirement[]) {
  const call = newCall();
  try {
    await new SecurityPolicy(requirements).admit(call);
    return { admitted: true, user: call.user };
  } catch (err) {
    if (!(err instanceof RestbusError)) throw err;
    return { admitted: false, code: err.code, status: err.status, challenges: err.headers['www-authenticate'] };
  }
}

describe("an operation's security requirements", () => {
  it('admit a call when any one requirement is met (OR), and tell the service who called', async () => {
    const oidc = new FixedCheck('oidc', ABSENT);
    const bearer = new FixedCheck('bearer', verified('alice', ['pets:read'], { email: 'a@x' }));
    const outcome = await admit([[use(oidc)], [use(bearer, ['pets:read'])]]);
    expect(outcome).toEqual({
      admitted: true,
      user: {
        subject: 'alice',
        schemes: ['bearer'],
        scopes: ['pets:read'],
        issuer: 'https://issuer.test',
        claims: { email: 'a@x' },
      },
    });
  });

  it('refuse a call that meets only one scheme of a requirement that needs two (AND)', async () => {
    const a = new FixedCheck('a', verified('alice'));
    const b = new FixedCheck('b', ABSENT);
    expect(await admit([[use(a), use(b)]])).toMatchObject({ admitted: false, code: 'UNAUTHORIZED', status: 401 });
  });

  it('admit a call that meets both schemes of a requirement, naming both', async () => {
    const a = new FixedCheck('a', verified('alice', ['x']));
    const b = new FixedCheck('b', verified('', ['y']));
    const outcome = await admit([[use(a, ['x']), use(b, ['y'])]]);
    expect(outcome).toMatchObject({
      admitted: true,
      user: { subject: 'alice', schemes: ['a', 'b'], scopes: ['x', 'y'] },
    });
  });

  it('need every listed scope, not any one of them', async () => {
    const bearer = new FixedCheck('bearer', verified('alice', ['pets:read']));
    const outcome = await admit([[use(bearer, ['pets:read', 'pets:write'])]]);
    expect(outcome).toEqual({
      admitted: false,
      code: 'INSUFFICIENT_SCOPE',
      status: 403,
      challenges: ['bearer error=insufficient_scope scope=pets:read pets:write'],
    });
  });

  it('let anyone in through an empty requirement, and still tell of a caller another requirement verifies', async () => {
    expect(await admit([[]])).toEqual({ admitted: true, user: undefined });
    const bearer = new FixedCheck('bearer', verified('alice'));
    expect(await admit([[], [use(bearer)]])).toMatchObject({ admitted: true, user: { subject: 'alice' } });
    const none = new FixedCheck('bearer', ABSENT);
    expect(await admit([[], [use(none)]])).toEqual({ admitted: true, user: undefined });
  });

  it('answer credentials that were sent and refused as refused, also where they are optional ({})', async () => {
    expect(await admit([[use(new FixedCheck('bearer', EXPIRED))], []])).toMatchObject({ code: 'TOKEN_EXPIRED' });
    expect(await admit([[], [use(new FixedCheck('bearer', INVALID))]])).toMatchObject({ code: 'TOKEN_INVALID' });
  });

  it('check a scheme named by several requirements once per call', async () => {
    const shared = new FixedCheck('shared', verified('alice', []));
    const other = new FixedCheck('other', ABSENT);
    await admit([[use(shared), use(other)], [use(shared, ['admin'])], [use(other)]]);
    expect(shared.checked).toBe(1);
    expect(other.checked).toBe(1);
  });

  it('answer 401 with a challenge per acceptable scheme when no credentials are sent', async () => {
    const outcome = await admit([[use(new FixedCheck('oidc', ABSENT))], [use(new FixedCheck('key', ABSENT))]]);
    expect(outcome).toEqual({ admitted: false, code: 'UNAUTHORIZED', status: 401, challenges: ['oidc', 'key'] });
  });

  it('answer 401 TOKEN_INVALID with error="invalid_token" on the scheme whose token was refused', async () => {
    const outcome = await admit([[use(new FixedCheck('oidc', INVALID))], [use(new FixedCheck('key', ABSENT))]]);
    expect(outcome).toEqual({
      admitted: false,
      code: 'TOKEN_INVALID',
      status: 401,
      challenges: ['oidc error=invalid_token', 'key'],
    });
  });

  it('answer 401 TOKEN_EXPIRED when the only credentials sent had expired', async () => {
    expect(await admit([[use(new FixedCheck('oidc', EXPIRED))]])).toMatchObject({ code: 'TOKEN_EXPIRED', status: 401 });
  });

  it('answer 503 AUTH_UNAVAILABLE when the credentials cannot be checked, rather than calling them invalid', async () => {
    expect(await admit([[use(new FixedCheck('oidc', UNAVAILABLE))]])).toMatchObject({
      code: 'AUTH_UNAVAILABLE',
      status: 503,
    });
  });

  it('prefer 403 to 401 when verified credentials lack only scopes, whatever else was missing', async () => {
    const bearer = new FixedCheck('bearer', verified('alice', ['read']));
    const key = new FixedCheck('key', ABSENT);
    expect(await admit([[use(key)], [use(bearer, ['write'])]])).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
  });
});
