import pino from 'pino';
import { RestbusError } from '@restbus/infra';
import { loadJose } from './jose';
import { IssuerKeys, type IssuerSource } from './issuer-keys';
import { describeUnusableIssuerUrl, fetchIssuerJson, type IssuerFetchLimits } from './fetch-issuer-json';
import { JwtVerifier } from './jwt-verifier';
import { VerifiedTokens } from './verified-tokens';
import { TestIssuer } from '../testing/test-issuer';

const jose = loadJose();
const logger = pino({ level: 'silent' });
const LIMITS: IssuerFetchLimits = { timeoutMs: 2000, maxBytes: 64 * 1024, allowHttp: false };
const TIMING = { cooldownMs: 30_000, retryMs: 1000, refreshMs: 600_000 };

let issuer: TestIssuer;
beforeEach(async () => {
  issuer = await TestIssuer.start();
});
afterEach(() => issuer.close());

/** A verifier of the test issuer's tokens on a clock the test moves, with its key set's fetch count. */
function newVerifier(
  source: IssuerSource = { kind: 'fixed', location: { issuer: issuer.url, jwksUri: issuer.jwksUrl } },
) {
  const clock = { now: 1_000_000 };
  const outcomes: string[] = [];
  const keys = new IssuerKeys({
    source,
    jose,
    limits: LIMITS,
    timing: TIMING,
    logger,
    now: () => clock.now,
    onFetch: (outcome) => outcomes.push(outcome),
  });
  // Nothing kept between calls: every call below asks the key set.
  const noCache = new VerifiedTokens({ maxEntries: 0, maxBytes: 0, maxAgeMs: 0 });
  return { keys, clock, outcomes, verifier: new JwtVerifier(keys, { claims: [] }, noCache, jose, logger) };
}

describe("an issuer's key set", () => {
  it('is fetched once for many calls, and not again while its keys serve', async () => {
    const kid = await issuer.addKey();
    const { verifier } = newVerifier();
    const tokens = await Promise.all([1, 2, 3].map((n) => issuer.sign({ sub: `user-${n}` }, { kid })));
    const outcomes = await Promise.all([...tokens, ...tokens].map((token) => verifier.verify(token)));
    expect(outcomes.every((outcome) => outcome.kind === 'verified')).toBe(true);
    expect(issuer.fetches.jwks).toBe(1);
  });

  it('picks up a key published later the first time a token uses it (rotation)', async () => {
    const old = await issuer.addKey();
    const { verifier, clock } = newVerifier();
    expect(await verifier.verify(await issuer.sign({ sub: 'a' }, { kid: old }))).toMatchObject({ kind: 'verified' });
    const next = await issuer.addKey({ publish: false });
    issuer.publish([old, next]);
    clock.now += TIMING.cooldownMs;
    expect(await verifier.verify(await issuer.sign({ sub: 'a' }, { kid: next }))).toMatchObject({ kind: 'verified' });
    expect(issuer.fetches.jwks).toBe(2);
  });

  it('is fetched again ahead of use by the periodic refresh', async () => {
    await issuer.addKey();
    const { keys } = newVerifier();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance', 'Date'] });
    try {
      keys.start();
      await keys.current();
      expect(issuer.fetches.jwks).toBe(1);
      jest.advanceTimersByTime(TIMING.refreshMs);
      jest.useRealTimers();
      for (let tries = 0; issuer.fetches.jwks < 2 && tries < 200; tries++)
        await new Promise((done) => setTimeout(done, 10));
      expect(issuer.fetches.jwks).toBe(2);
    } finally {
      jest.useRealTimers();
      keys.stop();
    }
  });

  it('is fetched at most once per cooldown however many made-up kids a flood of tokens names', async () => {
    const kid = await issuer.addKey();
    const { verifier, clock } = newVerifier();
    await verifier.verify(await issuer.sign({ sub: 'a' }, { kid }));
    // Tokens signed by keys the issuer never published, each with its own kid (EC keys: quick to make).
    const forger = await TestIssuer.start();
    try {
      const tokens: string[] = [];
      for (let i = 0; i < 50; i++) {
        const fake = await forger.addKey({ kid: `made-up-${i}`, alg: 'ES256' });
        tokens.push(await forger.sign({ sub: 'a', iss: issuer.url }, { kid: fake }));
      }
      // The set was fetched for the first call just now: no made-up kid is a reason to fetch it again yet.
      for (const token of tokens.slice(0, 25)) expect(await verifier.verify(token)).toMatchObject({ kind: 'invalid' });
      expect(issuer.fetches.jwks).toBe(1);
      clock.now += TIMING.cooldownMs;
      for (const token of tokens.slice(25)) expect(await verifier.verify(token)).toMatchObject({ kind: 'invalid' });
      // The cooldown passed once: one fetch for the 25 made-up kids that came after it.
      expect(issuer.fetches.jwks).toBe(2);
    } finally {
      await forger.close();
    }
  });

  it('keeps serving the last good keys while the issuer is down or answers garbage', async () => {
    const kid = await issuer.addKey();
    const { verifier, clock, keys, outcomes } = newVerifier();
    expect(await verifier.verify(await issuer.sign({ sub: 'a' }, { kid }))).toMatchObject({ kind: 'verified' });
    for (const behaviour of ['down', 'garbage', 'not-a-key-set', 'redirect'] as const) {
      issuer.behaviour.jwks = behaviour;
      clock.now += TIMING.cooldownMs;
      // A made-up kid makes it fetch again; the fetch fails, so whether the kid is new cannot be told (unavailable,
      // not invalid), and the known key still verifies.
      const unknownKid = await issuer.sign({ sub: 'a' }, { kid, header: { kid: 'unknown' } });
      expect(await verifier.verify(unknownKid)).toMatchObject({ kind: 'unavailable' });
      expect(await verifier.verify(await issuer.sign({ sub: 'a' }, { kid }))).toMatchObject({ kind: 'verified' });
    }
    expect(outcomes).toEqual(['ok', 'failed', 'failed', 'failed', 'failed']);
    await expect(keys.current()).resolves.toMatchObject({ issuer: issuer.url });
  });

  it('leaves calls unverifiable (AUTH_UNAVAILABLE) while it was never fetched, trying again at most once per retry period', async () => {
    await issuer.addKey();
    issuer.behaviour.jwks = 'down';
    const { verifier, clock } = newVerifier();
    const token = await issuer.sign({ sub: 'a' });
    for (let i = 0; i < 10; i++) expect(await verifier.verify(token)).toMatchObject({ kind: 'unavailable' });
    expect(issuer.fetches.jwks).toBe(1);
    issuer.behaviour.jwks = 'normal';
    clock.now += TIMING.retryMs;
    expect(await verifier.verify(token)).toMatchObject({ kind: 'verified' });
    expect(issuer.fetches.jwks).toBe(2);
  });

  it('comes by discovery, whose document must name the issuer it was fetched from', async () => {
    await issuer.addKey();
    const { keys } = newVerifier({ kind: 'discovery', url: issuer.discoveryUrl });
    await expect(keys.current()).resolves.toEqual(expect.objectContaining({ issuer: issuer.url }));
    const impostor = await TestIssuer.start();
    try {
      impostor.advertisedIssuer = issuer.url;
      const mixedUp = newVerifier({ kind: 'discovery', url: impostor.discoveryUrl });
      await expect(mixedUp.keys.current()).rejects.toMatchObject({ code: 'AUTH_UNAVAILABLE' });
      expect(impostor.fetches.jwks).toBe(0);
    } finally {
      await impostor.close();
    }
  });
});

describe("the fetch of an issuer's document", () => {
  const failureOf = async (url: string, limits: IssuerFetchLimits = LIMITS): Promise<string> => {
    try {
      await fetchIssuerJson(url, limits);
      return 'fetched';
    } catch (err) {
      return err instanceof RestbusError ? `${err.code}: ${err.message}` : String(err);
    }
  };

  it.each<[string, Parameters<typeof failureOf>[1] | undefined, RegExp]>([
    ['slow', { ...LIMITS, timeoutMs: 300 }, /within 300 ms/],
    ['huge', undefined, /more than the 65536 bytes/],
    ['redirect', undefined, /redirect \(302\), which is not followed/],
    ['garbage', undefined, /no UTF-8 JSON/],
    ['down', undefined, /answered 503/],
  ])('fails cleanly when the issuer is %s', async (behaviour, limits, message) => {
    await issuer.addKey();
    issuer.behaviour.jwks = behaviour as 'slow';
    expect(await failureOf(issuer.jwksUrl, limits)).toMatch(new RegExp(`^AUTH_UNAVAILABLE: .*${message.source}`));
  });

  it('fails when nothing listens', async () => {
    const url = issuer.jwksUrl;
    await issuer.close();
    issuer = await TestIssuer.start();
    expect(await failureOf(url)).toMatch(/^AUTH_UNAVAILABLE: .*cannot be reached/);
  });

  it.each([
    ['https://issuer.example/jwks', false, undefined],
    ['http://127.0.0.1:8080/jwks', false, undefined],
    ['http://localhost/jwks', false, undefined],
    ['http://issuer.example/jwks', false, /must be https/],
    ['http://issuer.example/jwks', true, undefined],
    ['ftp://issuer.example/jwks', true, /must be https \(not ftp\)/],
    ['https://user:secret@issuer.example/jwks', false, /user or password/],
    ['/jwks', false, /not an absolute URL/],
  ])('takes %s (allowHttp %s) only over HTTPS or from this machine', (url, allowHttp, refusal) => {
    const said = describeUnusableIssuerUrl(url, allowHttp);
    if (refusal) expect(said).toMatch(refusal);
    else expect(said).toBeUndefined();
  });
});
