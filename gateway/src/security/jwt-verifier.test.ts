import pino from 'pino';
import { loadJose } from './jose';
import { IssuerKeys } from './issuer-keys';
import { DEFAULT_ISSUER_FETCH_LIMITS } from './fetch-issuer-json';
import { JwtVerifier, MAX_TOKEN_LENGTH, type JwtCheckSettings } from './jwt-verifier';
import { VerifiedTokens } from './verified-tokens';
import { BearerCheck } from './bearer-check';
import type { PolicyCall } from './call-policy';
import type { IncomingMessage } from 'node:http';
import { TestIssuer } from '../testing/test-issuer';

const jose = loadJose();
const logger = pino({ level: 'silent' });

let issuer: TestIssuer;
let kid: string;
beforeAll(async () => {
  issuer = await TestIssuer.start();
  kid = await issuer.addKey();
});
afterAll(() => issuer.close());

/** The test issuer's keys, found by discovery or named outright. */
function newKeys(source: 'fixed' | 'discovery' = 'fixed'): IssuerKeys {
  return new IssuerKeys({
    source:
      source === 'fixed'
        ? { kind: 'fixed', location: { issuer: issuer.url, jwksUri: issuer.jwksUrl } }
        : { kind: 'discovery', url: issuer.discoveryUrl },
    jose,
    limits: DEFAULT_ISSUER_FETCH_LIMITS,
    logger,
  });
}

function newVerifier(settings: Partial<JwtCheckSettings> = {}, source: 'fixed' | 'discovery' = 'fixed') {
  return new JwtVerifier(newKeys(source), { claims: [], ...settings }, new VerifiedTokens(), jose, logger);
}

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('a JWT check', () => {
  it("accepts a token of the issuer's key, with its subject, scopes and the claims asked for", async () => {
    const token = await issuer.sign({ sub: 'alice', scope: 'pets:read pets:write', email: 'a@x', role: 'admin' });
    const outcome = await newVerifier({ claims: ['email'] }).verify(token);
    expect(outcome).toMatchObject({
      kind: 'verified',
      token: { subject: 'alice', issuer: issuer.url, claims: { email: 'a@x' } },
    });
    expect(outcome.kind === 'verified' && [...outcome.token.scopes]).toEqual(['pets:read', 'pets:write']);
  });

  it('reads the scopes from scp (a list) or from the claim the scheme names', async () => {
    const scp = await issuer.sign({ sub: 'a', scp: ['x', 'y'] });
    const named = await issuer.sign({ sub: 'a', permissions: ['z'], scope: 'ignored' });
    const fromScp = await newVerifier().verify(scp);
    const fromNamed = await newVerifier({ scopesClaim: 'permissions' }).verify(named);
    expect(fromScp.kind === 'verified' && [...fromScp.token.scopes]).toEqual(['x', 'y']);
    expect(fromNamed.kind === 'verified' && [...fromNamed.token.scopes]).toEqual(['z']);
  });

  it('finds the issuer and its keys by discovery for an openIdConnect scheme', async () => {
    const token = await issuer.sign({ sub: 'alice' });
    expect(await newVerifier({}, 'discovery').verify(token)).toMatchObject({ kind: 'verified' });
  });

  it.each<[string, () => Promise<string>, string]>([
    ['another issuer', () => issuer.sign({ sub: 'a', iss: 'https://evil.test' }), 'TOKEN_INVALID'],
    ['an expired token', () => issuer.sign({ sub: 'a' }, { expiresIn: -120 }), 'TOKEN_EXPIRED'],
    [
      'a token not valid yet',
      () => issuer.sign({ sub: 'a', nbf: Math.floor(Date.now() / 1000) + 600 }),
      'TOKEN_INVALID',
    ],
    ['a token without exp', () => issuer.sign({ sub: 'a' }, { expiresIn: null }), 'TOKEN_INVALID'],
    [
      'a forged signature',
      async () => {
        const [head, body] = (await issuer.sign({ sub: 'a' })).split('.');
        const other = (await issuer.sign({ sub: 'b' })).split('.')[2];
        return `${head}.${body}.${other}`;
      },
      'TOKEN_INVALID',
    ],
    [
      'a changed payload',
      async () => {
        const [head, , sig] = (await issuer.sign({ sub: 'a' })).split('.');
        return `${head}.${b64url({ sub: 'admin', iss: issuer.url, exp: 9_999_999_999 })}.${sig}`;
      },
      'TOKEN_INVALID',
    ],
    [
      'alg none',
      async () => `${b64url({ alg: 'none', kid })}.${b64url({ sub: 'a', iss: issuer.url, exp: 9_999_999_999 })}.`,
      'TOKEN_INVALID',
    ],
    [
      'HS256 keyed with the public key (algorithm confusion)',
      async () => {
        const publicJwk = issuer.publicJwk(kid);
        const secret = new TextEncoder().encode(JSON.stringify(publicJwk));
        return new jose.SignJWT({ sub: 'a', iss: issuer.url, exp: 9_999_999_999 })
          .setProtectedHeader({ alg: 'HS256', kid })
          .sign(secret);
      },
      'TOKEN_INVALID',
    ],
    [
      'a key of its own embedded in the header (jwk), or named by jku',
      async () => {
        const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
        return new jose.SignJWT({ sub: 'a', iss: issuer.url, exp: 9_999_999_999 })
          .setProtectedHeader({ alg: 'RS256', jwk: await jose.exportJWK(publicKey), jku: `${issuer.url}/evil` })
          .sign(privateKey);
      },
      'TOKEN_INVALID',
    ],
    ['a malformed token', async () => 'not.a.token', 'TOKEN_INVALID'],
    ['three empty parts', async () => '..', 'TOKEN_INVALID'],
    ['an oversized token', async () => `${'a'.repeat(MAX_TOKEN_LENGTH)}.b.c`, 'TOKEN_INVALID'],
  ])('refuses %s', async (_case, make, code) => {
    expect(await newVerifier().verify(await make())).toMatchObject({ kind: 'invalid', code });
  });

  it('needs aud to include one of the audiences when they are set, and ignores aud when they are not', async () => {
    const token = await issuer.sign({ sub: 'a', aud: ['other', 'pets-api'] });
    const elsewhere = await issuer.sign({ sub: 'a', aud: 'other' });
    expect(await newVerifier({ audiences: ['pets-api'] }).verify(token)).toMatchObject({ kind: 'verified' });
    expect(await newVerifier({ audiences: ['pets-api'] }).verify(elsewhere)).toMatchObject({ code: 'TOKEN_INVALID' });
    expect(await newVerifier().verify(elsewhere)).toMatchObject({ kind: 'verified' });
  });

  it('checks a token once: the next calls with it are found verified, without a signature check', async () => {
    const token = await issuer.sign({ sub: 'alice' });
    const lookups: string[] = [];
    const keys = newKeys();
    let keyAsked = 0;
    const getKey = keys.getKey;
    Object.defineProperty(keys, 'getKey', {
      value: (...args: Parameters<typeof getKey>) => (keyAsked++, getKey(...args)),
    });
    const verifier = new JwtVerifier(keys, { claims: [] }, new VerifiedTokens(), jose, logger, (r) => lookups.push(r));
    for (let i = 0; i < 5; i++) expect(await verifier.verify(token)).toMatchObject({ kind: 'verified' });
    expect(lookups).toEqual(['miss', 'hit', 'hit', 'hit', 'hit']);
    expect(keyAsked).toBe(1);
  });

  it('finds a bearer token verified before at once, in any spelling of the header, each call counted once', async () => {
    const token = await issuer.sign({ sub: 'alice', scope: 'pets:read' });
    const lookups: string[] = [];
    const keys = newKeys();
    const verifier = new JwtVerifier(keys, { claims: [] }, new VerifiedTokens(), jose, logger, (r) => lookups.push(r));
    const check = new BearerCheck('oidc', verifier);
    const callWith = (authorization: string): PolicyCall => ({
      req: { headers: { authorization } } as IncomingMessage,
      query: '',
    });
    const first = check.check(callWith(`Bearer ${token}`));
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ kind: 'verified', subject: 'alice' });
    // Verified now: the usual spelling is answered without a promise, and gives the same outcome object each time.
    const again = check.check(callWith(`Bearer ${token}`));
    expect(again).toMatchObject({ kind: 'verified', subject: 'alice' });
    expect(check.check(callWith(`Bearer ${token}`))).toBe(again);
    // Other spellings RFC 6750 allows take the parsing path, and find it there.
    expect(await check.check(callWith(`bearer  ${token} `))).toBe(again);
    expect(await check.check(callWith(`Bearer ${token}x`))).toMatchObject({ kind: 'invalid' });
    expect(lookups).toEqual(['miss', 'hit', 'hit', 'hit', 'miss']);
  });
});
