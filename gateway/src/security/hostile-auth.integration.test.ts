import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { createSeededRandom, recordHostileCounts, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { loadJose } from './jose';
import { launchGateway, stopGateway, type RunningGateway } from './__tests__/run-auth-gateway';
import { createTestCertificate, TestIssuer } from '../testing/test-issuer';

const jose = loadJose();
// A stack frame, a source position, Node's internals or a path of this machine: none belongs in an answer.
const LEAKS = [/\n\s*at\s/, /node:internal/, /node_modules/, /\.[jt]s:\d+/, /\/(home|root|usr|tmp|work)\//];
const TOKENS = 240;

let dir: string;
let tlsDir: string;
let issuer: TestIssuer;
let forger: TestIssuer;
let nats: TestNatsServer;
let nc: NatsConnection;
let gateway: RunningGateway;
let reached = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-hostile-auth-'));
  const tls = await createTestCertificate();
  tlsDir = tls.dir;
  issuer = await TestIssuer.start({ tls });
  await issuer.addKey();
  // Keys the issuer never published, with kids of their own: what a forger signs with.
  forger = await TestIssuer.start();
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  nc.subscribe('easer.>', {
    callback: (_err, msg) => {
      reached++;
      msg.respond(JSON.stringify({ status: 200, body: { ok: true } }));
    },
  });
  await nc.flush();
  const api = {
    openapi: '3.1.0',
    info: { title: 'vault', version: '1' },
    components: {
      securitySchemes: {
        oidc: { type: 'openIdConnect', openIdConnectUrl: issuer.discoveryUrl },
        partner: {
          type: 'http',
          scheme: 'bearer',
          'x-restbus-jwt': { issuer: issuer.url, jwksUri: issuer.jwksUrl, audience: 'vault' },
        },
      },
    },
    security: [{ oidc: ['vault:open'] }, { partner: [] }],
    paths: { '/vault': { get: { responses: { '200': { description: 'the vault' } } } } },
  };
  await writeFile(join(dir, 'vault.json'), JSON.stringify(api));
  gateway = await launchGateway(['-r', join(dir, 'vault.json'), '-u', '-n', nats.url, '--auth', 'verify'], {
    certFile: tls.certFile,
    linked: true,
  });
});
afterAll(async () => {
  await stopGateway(gateway);
  await nc?.close();
  await nats?.dispose();
  await Promise.all([issuer?.close(), forger?.close()]);
  await rm(dir, { recursive: true, force: true });
  await rm(tlsDir, { recursive: true, force: true });
});

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const FAR = 9_999_999_999;

/** The kinds of hostile credentials, each a maker of one `Authorization` header value (or other headers). */
function createHostileCredentials(seed: number) {
  const random = createSeededRandom(seed);
  const { pick, below, text } = random;
  const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
  const legit = () => issuer.sign({ sub: 'mallory', scope: 'vault:read' });
  const makers: Record<string, () => Promise<Record<string, string>>> = {
    'a token without the scope and not meant for the vault': async () => ({ authorization: `Bearer ${await legit()}` }),
    'an expired token': async () => ({
      authorization: `Bearer ${await issuer.sign({ sub: 'm', scope: 'vault:open' }, { expiresIn: -120 - below(10_000) })}`,
    }),
    'another issuer': async () => ({
      authorization: `Bearer ${await issuer.sign({ sub: 'm', scope: 'vault:open', iss: pick(['https://evil.test', `${issuer.url}/`, issuer.url.toUpperCase()]) })}`,
    }),
    'another audience': async () => ({
      authorization: `Bearer ${await issuer.sign({ sub: 'm', aud: pick(['vault2', 'VAULT', ['other'], '']) })}`,
    }),
    'a changed payload': async () => {
      const [head, , sig] = (await legit()).split('.');
      return {
        authorization: `Bearer ${head}.${b64({ sub: 'root', scope: 'vault:open', iss: issuer.url, exp: FAR })}.${sig}`,
      };
    },
    'alg none': async () => ({
      authorization: `Bearer ${b64({ alg: pick(['none', 'None', 'NONE']), typ: 'JWT' })}.${b64({ sub: 'root', scope: 'vault:open', iss: issuer.url, exp: FAR })}.${pick(['', 'x'])}`,
    }),
    'HS256 keyed with the public key': async () => {
      const jwk = issuer.publicJwk('key-1');
      const secret = new TextEncoder().encode(pick([JSON.stringify(jwk), String(jwk.n)]));
      const token = await new jose.SignJWT({ sub: 'root', scope: 'vault:open', iss: issuer.url, exp: FAR })
        .setProtectedHeader({ alg: pick(['HS256', 'HS512']), kid: 'key-1' })
        .sign(secret);
      return { authorization: `Bearer ${token}` };
    },
    'a made-up kid (a flood of them)': async () => {
      const kid = await forger.addKey({ alg: 'ES256', kid: `made-up-${text(8, 'abcdef0123456789')}` });
      return {
        authorization: `Bearer ${await forger.sign({ sub: 'root', scope: 'vault:open', iss: issuer.url }, { kid })}`,
      };
    },
    'a key embedded in the header': async () => {
      const kid = await forger.addKey({ alg: 'ES256' });
      const token = await forger.sign(
        { sub: 'root', scope: 'vault:open', iss: issuer.url },
        { kid, header: { jwk: forger.publicJwk(kid), jku: `${forger.url}/jwks`, x5u: `${forger.url}/cert` } },
      );
      return { authorization: `Bearer ${token}` };
    },
    'a malformed token': async () => ({
      authorization: `Bearer ${pick(['', '.', '..', 'a.b', 'a.b.c.d', `${b64({ alg: 'RS256' })}.e30.`, text(1 + below(300), 'abcXYZ09-_.'), '%%%'])}`,
    }),
    'malformed credentials': async () => ({
      authorization: pick([
        'Bearer',
        'Bearer ',
        `Bearer ${text(1 + below(40), PRINTABLE)}`,
        `bearer  ${text(10, 'abc')}`,
        `Basic ${Buffer.from('root:root').toString('base64')}`,
        `Token ${await legit()}`,
        `Bearer ${await legit()} extra`,
        text(1 + below(60), PRINTABLE),
      ]),
    }),
    'an oversized token': async () => ({ authorization: `Bearer ${'a'.repeat(16 * 1024 + below(8 * 1024))}.b.c` }),
    'a spoofed identity': async () => ({ user: 'root', 'x-restbus-user': '{"subject":"root"}', cookie: 'user=root' }),
  };
  const kinds = Object.keys(makers);
  return { kinds, next: () => pick(kinds), make: (kind: string) => makers[kind]() };
}

describe('restbus-gateway --auth verify under hostile credentials', () => {
  it(`admits none of ${TOKENS} forged, expired, confused, malformed or oversized credentials, leaks nothing and hammers no issuer`, async () => {
    const hostile = createHostileCredentials(46);
    const fetchesBefore = issuer.fetches.jwks;
    const tried: Record<string, number> = {};
    const found = { admitted: 0, leaks: 0, unshaped: 0, unexpected: 0, crashes: 0 };
    const surprises: string[] = [];
    for (let i = 0; i < TOKENS; i++) {
      const kind = i < hostile.kinds.length ? hostile.kinds[i] : hostile.next();
      tried[kind] = (tried[kind] ?? 0) + 1;
      const headers = await hostile.make(kind);
      let response: Response;
      try {
        response = await fetch(`${gateway.url}/vault`, { headers });
      } catch (err) {
        // A header value fetch itself will not send (a control character) is no call at all.
        if (err instanceof TypeError && /header/i.test(String(err.cause ?? err.message))) continue;
        throw err;
      }
      const text = await response.text();
      if (response.status < 400) found.admitted++;
      if (LEAKS.some((leak) => leak.test(text))) found.leaks++;
      // A token of the issuer without the scope: the OpenID scheme verifies it (it sets no audience) and it lacks
      // `vault:open`, so 403; the partner scheme refuses it for its audience.
      const ofTheIssuerWithoutScope = ['a token without the scope and not meant for the vault', 'another audience'];
      const expected =
        kind === 'an oversized token' ? [401, 431] : ofTheIssuerWithoutScope.includes(kind) ? [403] : [401];
      if (!expected.includes(response.status)) {
        found.unexpected++;
        surprises.push(`${kind}: ${response.status} ${text}`);
      }
      if (response.status !== 431) {
        const body = JSON.parse(text) as Record<string, unknown>;
        if (Object.keys(body).sort().join() !== 'code,error' || typeof body.error !== 'string') found.unshaped++;
      }
    }
    if (gateway.child.exitCode !== null) found.crashes++;
    recordHostileCounts('gateway auth (--auth verify)', { tried, found });
    expect(surprises).toEqual([]);
    expect(found).toEqual({ admitted: 0, leaks: 0, unshaped: 0, unexpected: 0, crashes: 0 });
    expect(reached).toBe(0);
    // The made-up kids came faster than the 30 s cooldown: at most one more fetch of the issuer's key set.
    expect(issuer.fetches.jwks - fetchesBefore).toBeLessThanOrEqual(1);
    expect(Object.keys(tried).sort()).toEqual([...hostile.kinds].sort());
  });

  it('still admits a good token after the flood', async () => {
    const token = await issuer.sign({ sub: 'alice', scope: 'vault:open' });
    const response = await fetch(`${gateway.url}/vault`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(reached).toBe(1);
  });
});
