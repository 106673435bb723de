import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import {
  callGateway as call,
  launchGateway,
  stopGateway as stop,
  type RunningGateway as Running,
} from './__tests__/run-auth-gateway';
import { createTestCertificate, TestIssuer } from '../testing/test-issuer';

// The program as users run it; jest's global setup builds it.
const MAIN = resolve(__dirname, '../../dist/main.js');

type Dialect = '2.0' | '3.0' | '3.1';

/**
 * The same secured API in each dialect: `primary` is an OpenID Connect scheme (an oauth2 one with x-restbus-jwt in
 * Swagger 2.0, which has no openIdConnect), `partner` a bearer scheme whose tokens must be meant for `pets-api` and
 * whose `email` claim is passed on. The document's own security applies where an operation has none.
 */
function securedApi(dialect: Dialect, issuer: TestIssuer): object {
  const jwt = { issuer: issuer.url, jwksUri: issuer.jwksUrl };
  const partnerJwt = { ...jwt, audience: 'pets-api', claims: ['email'] };
  const ok = {
    description: 'ok',
    ...(dialect === '2.0' ? {} : { content: { 'application/json': { schema: { type: 'object' } } } }),
  };
  const operation = (security?: object[]) => ({ responses: { '200': ok }, ...(security && { security }) });
  const paths = {
    '/public': { get: operation([]) },
    '/read': { get: operation([{ primary: ['pets:read'] }]) },
    '/scoped': { get: operation([{ primary: ['pets:read', 'pets:write'] }]) },
    '/either': { get: operation([{ primary: ['admin'] }, { partner: [] }]) },
    '/both': { get: operation([{ primary: [], partner: [] }]) },
    '/default': { get: operation() },
  };
  const security = [{ primary: [] }];
  if (dialect === '2.0') {
    const oauth2 = (extension: object) => ({
      type: 'oauth2',
      flow: 'implicit',
      authorizationUrl: `${issuer.url}/authorize`,
      scopes: { 'pets:read': 'read', 'pets:write': 'write', admin: 'all' },
      'x-restbus-jwt': extension,
    });
    return {
      swagger: '2.0',
      info: { title: 'pets', version: '1' },
      produces: ['application/json'],
      securityDefinitions: { primary: oauth2(jwt), partner: oauth2(partnerJwt) },
      security,
      paths,
    };
  }
  return {
    openapi: dialect === '3.0' ? '3.0.3' : '3.1.0',
    info: { title: 'pets', version: '1' },
    components: {
      securitySchemes: {
        primary: { type: 'openIdConnect', openIdConnectUrl: issuer.discoveryUrl },
        partner: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', 'x-restbus-jwt': partnerJwt },
      },
    },
    security,
    paths,
  };
}

let dir: string;
let certFile: string;
let tlsDir: string;
let issuer: TestIssuer;
let nats: TestNatsServer;
let nc: NatsConnection;
/** Every request message a service got: what refused calls must never add to. */
const received: Array<{ user?: unknown; headers: Record<string, unknown> }> = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-auth-verify-'));
  const tls = await createTestCertificate();
  ({ certFile, dir: tlsDir } = tls);
  issuer = await TestIssuer.start({ tls });
  await issuer.addKey();
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  // The service: answers with who the gateway said called, and the Authorization header it got.
  nc.subscribe('easer.>', {
    callback: (_err, msg) => {
      const { request } = msg.json<{ request: { user?: unknown; headers: Record<string, unknown> } }>();
      received.push(request);
      const body = { user: request.user ?? null, authorization: request.headers.authorization ?? null };
      msg.respond(JSON.stringify({ status: 200, headers: { 'content-type': 'application/json' }, body }));
    },
  });
  await nc.flush();
});
afterAll(async () => {
  await nc?.close();
  await nats?.dispose();
  await issuer?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(tlsDir, { recursive: true, force: true });
});

/** Starts `restbus-gateway -r <file> -u --auth verify` trusting the issuer's certificate; resolves once it listens. */
function startGateway(file: string, extra: string[] = []): Promise<Running> {
  return launch(['-r', file, '-u', '-n', nats.url, '--auth', 'verify', ...extra], true);
}

const launch = (args: string[], linked: boolean): Promise<Running> => launchGateway(args, { certFile, linked });

async function writeApi(name: string, document: object): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(document));
  return file;
}

describe.each<Dialect>(['2.0', '3.0', '3.1'])('restbus-gateway --auth verify on an OpenAPI %s document', (dialect) => {
  let gateway: Running | undefined;
  beforeAll(async () => {
    gateway = await startGateway(await writeApi(`pets-${dialect}.json`, securedApi(dialect, issuer)));
  });
  afterAll(() => stop(gateway));

  const token = (claims: Record<string, unknown> = {}) => issuer.sign({ sub: 'alice', ...claims });

  it('forwards a public operation without credentials, telling the service of no caller', async () => {
    expect(await call(gateway!, '/public')).toMatchObject({ status: 200, body: { user: null } });
  });

  it('refuses a secured operation without credentials with 401 UNAUTHORIZED and a Bearer challenge', async () => {
    const before = received.length;
    const seen = await call(gateway!, '/read');
    expect(seen).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
    expect(seen.challenges).toBe('Bearer realm="restbus"');
    expect(Object.keys(seen.body).sort()).toEqual(['code', 'error']);
    expect(received.length).toBe(before);
  });

  it('forwards a call whose token grants the scope, with the verified identity at request.user', async () => {
    const seen = await call(gateway!, '/read', await token({ scope: 'pets:read' }));
    expect(seen).toMatchObject({
      status: 200,
      body: { user: { subject: 'alice', schemes: ['primary'], scopes: ['pets:read'], issuer: issuer.url, claims: {} } },
    });
  });

  it('answers 403 INSUFFICIENT_SCOPE naming the scopes when the token lacks one, and needs every listed scope', async () => {
    const readOnly = await token({ scope: 'pets:read' });
    const seen = await call(gateway!, '/scoped', readOnly);
    expect(seen).toMatchObject({ status: 403, body: { code: 'INSUFFICIENT_SCOPE' } });
    expect(seen.challenges).toBe('Bearer realm="restbus", error="insufficient_scope", scope="pets:read pets:write"');
    expect(await call(gateway!, '/scoped', await token({ scope: 'pets:write pets:read' }))).toMatchObject({
      status: 200,
    });
  });

  it('admits by any one requirement (OR): the partner scheme alone, with the claim it passes on', async () => {
    const noAdmin = await token({ scope: 'pets:read' });
    expect(await call(gateway!, '/either', noAdmin)).toMatchObject({
      status: 403,
      body: { code: 'INSUFFICIENT_SCOPE' },
    });
    const partner = await token({ aud: 'pets-api', email: 'alice@example.com' });
    expect(await call(gateway!, '/either', partner)).toMatchObject({
      status: 200,
      body: { user: { subject: 'alice', schemes: ['partner'], claims: { email: 'alice@example.com' } } },
    });
  });

  it('needs every scheme of a requirement (AND): a token meant for no audience passes one and is refused', async () => {
    const seen = await call(gateway!, '/both', await token());
    expect(seen).toMatchObject({ status: 401, body: { code: 'TOKEN_INVALID' } });
    expect(seen.challenges).toContain('error="invalid_token"');
    expect(await call(gateway!, '/both', await token({ aud: 'pets-api' }))).toMatchObject({
      status: 200,
      body: { user: { schemes: ['primary', 'partner'] } },
    });
  });

  it("applies the document's security to an operation without its own", async () => {
    expect(await call(gateway!, '/default')).toMatchObject({ status: 401 });
    expect(await call(gateway!, '/default', await token())).toMatchObject({ status: 200 });
  });

  it('answers 401 TOKEN_EXPIRED for an expired token and TOKEN_INVALID for a forged one, without saying which check failed', async () => {
    const expired = await issuer.sign({ sub: 'alice' }, { expiresIn: -300 });
    expect(await call(gateway!, '/default', expired)).toMatchObject({ status: 401, body: { code: 'TOKEN_EXPIRED' } });
    const [head, , sig] = (await token()).split('.');
    const claims = Buffer.from(JSON.stringify({ sub: 'root', iss: issuer.url, exp: 9_999_999_999 })).toString(
      'base64url',
    );
    const forged = await call(gateway!, '/default', `${head}.${claims}.${sig}`);
    expect(forged).toEqual({
      status: 401,
      challenges: 'Bearer realm="restbus", error="invalid_token"',
      body: { error: 'the credentials are not valid', code: 'TOKEN_INVALID' },
    });
  });
});

describe('restbus-gateway --auth verify, beyond the requirements', () => {
  it('gives the service no identity a client wrote itself, and drops Authorization with --authDropCredentials', async () => {
    const file = await writeApi('pets-spoof.json', securedApi('3.1', issuer));
    const gateway = await startGateway(file, ['--authDropCredentials']);
    try {
      const spoof = { user: '{"subject":"root"}', 'x-restbus-user': 'root', cookie: 'user=root' };
      expect(await call(gateway, '/public?user=root', undefined, spoof)).toMatchObject({
        status: 200,
        body: { user: null },
      });
      const seen = await call(gateway, '/default', await issuer.sign({ sub: 'alice' }), spoof);
      expect(seen).toMatchObject({ status: 200, body: { user: { subject: 'alice' }, authorization: null } });
    } finally {
      await stop(gateway);
    }
  });

  it('uses a key the issuer publishes later, once the cooldown has passed since the last fetch (rotation)', async () => {
    const file = await writeApi('pets-rotation.json', securedApi('3.0', issuer));
    const gateway = await startGateway(file, ['--authKeyCooldown', '1']);
    try {
      const old = await issuer.sign({ sub: 'alice' });
      expect(await call(gateway, '/default', old)).toMatchObject({ status: 200 });
      const kid = await issuer.addKey({ alg: 'ES256', publish: false });
      issuer.publish([kid, 'key-1']);
      await new Promise((done) => setTimeout(done, 1100));
      const rotated = await issuer.sign({ sub: 'bob' }, { kid });
      expect(await call(gateway, '/default', rotated)).toMatchObject({
        status: 200,
        body: { user: { subject: 'bob' } },
      });
      expect(await call(gateway, '/default', old)).toMatchObject({ status: 200 });
    } finally {
      issuer.publish(['key-1']);
      await stop(gateway);
    }
  });

  it('answers 503 AUTH_UNAVAILABLE with Retry-After while the issuer was never reached, then verifies once it is', async () => {
    const file = await writeApi('pets-down.json', securedApi('3.0', issuer));
    issuer.behaviour.discovery = 'down';
    const gateway = await startGateway(file);
    try {
      const token = await issuer.sign({ sub: 'alice' });
      const response = await fetch(`${gateway.url}/default`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(await response.json()).toEqual({
        error: 'the credentials cannot be checked just now',
        code: 'AUTH_UNAVAILABLE',
      });
      issuer.behaviour.discovery = 'normal';
      await new Promise((done) => setTimeout(done, 1100));
      expect(await call(gateway, '/default', token)).toMatchObject({ status: 200 });
    } finally {
      issuer.behaviour.discovery = 'normal';
      await stop(gateway);
    }
  });

  it('refuses to start on a scheme it cannot verify, naming the scheme, its file and line', async () => {
    const document = {
      openapi: '3.0.3',
      info: { title: 'keys', version: '1' },
      components: {
        securitySchemes: {
          basicAuth: { type: 'http', scheme: 'basic' },
          bare: { type: 'http', scheme: 'bearer' },
        },
      },
      paths: {
        '/a': { get: { security: [{ basicAuth: [] }, { bare: [] }], responses: { '200': { description: 'ok' } } } },
      },
    };
    const file = join(dir, 'unverifiable.yaml');
    await writeFile(file, JSON.stringify(document, null, 2));
    const run = spawn(process.execPath, [MAIN, '-r', file, '-u', '-n', nats.url, '-p', '0', '--auth', 'verify']);
    let output = '';
    run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    run.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise((done) => run.on('close', done));
    expect(code).not.toBe(0);
    expect(output).toMatch(
      new RegExp(`unverifiable\\.yaml:9:7 +error +components\\.securitySchemes\\.basicAuth: .*http basic`),
    );
    expect(output).toMatch(/unverifiable\.yaml:13:7 +error +components\.securitySchemes\.bare: .*needs x-restbus-jwt/);
    expect(output).not.toMatch(/\n\s+at /);
  });

  it('without --auth, forwards calls unchecked as before and says so at start', async () => {
    const file = await writeApi('pets-unchecked.json', securedApi('3.0', issuer));
    const gateway = await launch(['-r', file, '-u', '-n', nats.url], true);
    try {
      expect(gateway.log.join('\n')).toMatch(/the API declares security, but forwarded calls are not checked/);
      expect(await call(gateway, '/read')).toMatchObject({ status: 200, body: { user: null } });
    } finally {
      await stop(gateway);
    }
  });
});

/** A mocked API whose document-wide security covers an event stream too. */
function mockedApi(): object {
  const api = securedApi('3.1', issuer) as { paths: Record<string, unknown> };
  api.paths['/events'] = {
    get: {
      'x-restbus-stream': { subject: 'pets.events' },
      responses: {
        '200': {
          description: 'the events',
          content: { 'text/event-stream': { itemSchema: { type: 'object' }, example: { n: 1 } } },
        },
      },
    },
  };
  api.paths['/read'] = {
    get: {
      ...(api.paths['/read'] as { get: object }).get,
      responses: { '200': { description: 'ok', content: { 'application/json': { example: { pet: 'Rex' } } } } },
    },
  };
  return api;
}

describe('restbus-gateway -m with --auth', () => {
  it('verifies the calls it mocks with --auth verify, event streams included', async () => {
    const gateway = await launch(
      ['-r', await writeApi('pets-mocked.json', mockedApi()), '-m', '--auth', 'verify'],
      false,
    );
    try {
      const present = await issuer.sign({ sub: 'alice', scope: 'pets:read' });
      expect(await call(gateway, '/read', 'not-a-jwt')).toMatchObject({ status: 401, body: { code: 'TOKEN_INVALID' } });
      expect(await call(gateway, '/read', present)).toEqual({ status: 200, challenges: null, body: { pet: 'Rex' } });
      const refused = await fetch(`${gateway.url}/events`, { headers: { accept: 'text/event-stream' } });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'UNAUTHORIZED' });
      const stream = await fetch(`${gateway.url}/events`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${present}` },
      });
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await stream.body?.cancel();
    } finally {
      await stop(gateway);
    }
  });

  it('checks nothing with --auth off, where -m alone checks that credentials are there, as Prism does', async () => {
    const file = await writeApi('pets-mocked-off.json', mockedApi());
    const off = await launch(['-r', file, '-m', '--auth', 'off'], false);
    const prism = await launch(['-r', file, '-m'], false);
    try {
      expect(await call(off, '/read')).toMatchObject({ status: 200, body: { pet: 'Rex' } });
      expect(await call(prism, '/read')).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
      expect(await call(prism, '/read', 'anything')).toMatchObject({ status: 200, body: { pet: 'Rex' } });
    } finally {
      await Promise.all([stop(off), stop(prism)]);
    }
  });
});

describe('restbus-gateway --auth verify, hybrid and reloaded', () => {
  it('checks a call before either path of -u -m: the mock standing in for a missing service is verified too', async () => {
    const api = mockedApi() as { paths: Record<string, { get: object }> };
    // An operation no service answers (the test's service listens on easer.> only for the other documents' paths
    // too, so this one is sent to a subject of its own that nobody serves).
    api.paths['/read'] = { get: { ...api.paths['/read'].get, 'x-restbus-subject': 'nobody.serves.this' } };
    const gateway = await launch(
      ['-r', await writeApi('pets-hybrid.json', api), '-u', '-m', '-n', nats.url, '--auth', 'verify'],
      true,
    );
    try {
      expect(await call(gateway, '/read')).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
      expect(await call(gateway, '/read', await issuer.sign({ sub: 'a', scope: 'other' }))).toMatchObject({
        status: 403,
      });
      const token = await issuer.sign({ sub: 'alice', scope: 'pets:read' });
      const mocked = await fetch(`${gateway.url}/read`, { headers: { authorization: `Bearer ${token}` } });
      expect(mocked.status).toBe(200);
      expect(mocked.headers.get('x-restbus-mocked')).toBe('true');
    } finally {
      await stop(gateway);
    }
  });

  it('applies the security of the document a reload (SIGHUP) brings, and keeps the old one when the new cannot be verified', async () => {
    const file = join(dir, 'pets-reloaded.json');
    const open = securedApi('3.0', issuer) as { security: object[]; paths: Record<string, unknown> };
    await writeFile(file, JSON.stringify({ ...open, security: [] }));
    const gateway = await startGateway(file);
    const reloaded = async (): Promise<void> => {
      const before = gateway.log.filter((line) => /API reload/.test(line)).length;
      gateway.child.kill('SIGHUP');
      for (let tries = 0; gateway.log.filter((line) => /API reload/.test(line)).length === before; tries++) {
        if (tries === 400) throw new Error('the gateway did not reload');
        await new Promise((done) => setTimeout(done, 25));
      }
    };
    try {
      expect(await call(gateway, '/default')).toMatchObject({ status: 200 });
      await writeFile(file, JSON.stringify(open));
      await reloaded();
      expect(await call(gateway, '/default')).toMatchObject({ status: 401 });
      expect(await call(gateway, '/default', await issuer.sign({ sub: 'alice' }))).toMatchObject({ status: 200 });
      const unverifiable = { ...open, components: { securitySchemes: { primary: { type: 'http', scheme: 'basic' } } } };
      await writeFile(file, JSON.stringify(unverifiable));
      await reloaded();
      expect(
        gateway.log.filter((line) => line.includes('API reload failed') && line.includes('http basic')),
      ).toHaveLength(1);
      expect(await call(gateway, '/default', await issuer.sign({ sub: 'alice' }))).toMatchObject({ status: 200 });
    } finally {
      await stop(gateway);
    }
  });
});

describe('restbus-gateway --auth verify --authSchemes', () => {
  const bareApi = () => {
    const api = securedApi('3.1', issuer) as { components: { securitySchemes: Record<string, object> } };
    api.components.securitySchemes.partner = { type: 'http', scheme: 'bearer' };
    return api;
  };

  it('verifies a scheme the contract leaves unconfigured with the settings given by its name', async () => {
    const schemes = { partner: { issuer: issuer.url, jwksUri: issuer.jwksUrl } };
    const gateway = await startGateway(await writeApi('pets-bare.json', bareApi()), [
      '--authSchemes',
      JSON.stringify(schemes),
    ]);
    try {
      const token = await issuer.sign({ sub: 'alice' });
      expect(await call(gateway, '/either', token)).toMatchObject({
        status: 200,
        body: { user: { schemes: ['partner'] } },
      });
    } finally {
      await stop(gateway);
    }
  });

  it("wins over the contract's x-restbus-jwt field by field: another audience, the same issuer", async () => {
    const schemes = JSON.stringify({ partner: { audience: 'deployment-api' }, partnr: { audience: 'typo' } });
    const gateway = await startGateway(await writeApi('pets-overridden.json', securedApi('3.1', issuer)), [
      '--authSchemes',
      schemes,
    ]);
    try {
      const meant = await issuer.sign({ sub: 'alice', aud: 'deployment-api' });
      expect(await call(gateway, '/either', meant)).toMatchObject({
        status: 200,
        body: { user: { schemes: ['partner'] } },
      });
      const contractAudience = await issuer.sign({ sub: 'alice', aud: 'pets-api' });
      expect(await call(gateway, '/both', contractAudience)).toMatchObject({
        status: 401,
        body: { code: 'TOKEN_INVALID' },
      });
      // A name no operation uses is said at start: a misspelt scheme would otherwise keep the contract's settings.
      const unknown = gateway.log.filter((line) => line.includes('--authSchemes names schemes no operation uses'));
      expect(unknown.map((line) => (JSON.parse(line) as { schemes: string[] }).schemes)).toEqual([['partnr']]);
    } finally {
      await stop(gateway);
    }
  });

  it.each([
    ['{not json', /--authSchemes.*is not JSON/],
    ['{"partner": {"issuer": 7}}', /--authSchemes.*partner\.issuer must be string/],
    ['{"partner": {"jwks": "x"}}', /--authSchemes.*must NOT have additional properties/],
  ])('refuses %s at start with exit 2 and what is wrong', async (value, message) => {
    const run = spawn(process.execPath, [
      MAIN,
      '-r',
      join(dir, 'pets-bare.json'),
      '--auth',
      'verify',
      '--authSchemes',
      value,
    ]);
    let stderr = '';
    run.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((done) => run.on('close', done))).toBe(2);
    expect(stderr).toMatch(message);
  });
});

describe('restbus-gateway --auth verify, the edges of the contract', () => {
  it("checks an x-static folder's security before serving a file from it", async () => {
    const site = join(dir, 'site');
    await mkdir(site, { recursive: true });
    await writeFile(join(site, 'index.html'), '<h1>pets</h1>');
    const api = securedApi('3.0', issuer) as { paths: Record<string, unknown> };
    api.paths['/docs'] = {
      get: { 'x-static': { contentPath: 'site' }, responses: { '200': { description: 'the docs' } } },
    };
    const file = await writeApi('pets-static.json', api);
    const gateway = await startGateway(file, ['--staticContentBasePath', dir]);
    try {
      const refused = await fetch(`${gateway.url}/docs/`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'UNAUTHORIZED' });
      const token = await issuer.sign({ sub: 'alice' });
      const served = await fetch(`${gateway.url}/docs/`, { headers: { authorization: `Bearer ${token}` } });
      expect(served.status).toBe(200);
      expect(await served.text()).toBe('<h1>pets</h1>');
    } finally {
      await stop(gateway);
    }
  });

  it('keeps the last good keys across a reload while the issuer is down, and says which schemes take any audience', async () => {
    const file = await writeApi('pets-reload-down.json', securedApi('3.0', issuer));
    const gateway = await startGateway(file);
    try {
      expect(await call(gateway, '/default', await issuer.sign({ sub: 'before' }))).toMatchObject({ status: 200 });
      issuer.behaviour = { discovery: 'down', jwks: 'down' };
      const reloads = () => gateway.log.filter((line) => line.includes('"API reloaded"')).length;
      const before = reloads();
      gateway.child.kill('SIGHUP');
      for (let tries = 0; reloads() === before; tries++) {
        if (tries === 400) throw new Error('the gateway did not reload');
        await new Promise((done) => setTimeout(done, 25));
      }
      // A token never seen: checked with the keys fetched before the reload.
      expect(await call(gateway, '/default', await issuer.sign({ sub: 'after' }))).toMatchObject({
        status: 200,
        body: { user: { subject: 'after' } },
      });
      const warned = gateway.log.filter((line) => line.includes('whatever its audience'));
      expect((JSON.parse(warned[0]) as { schemes: string[] }).schemes).toEqual(['primary']);
    } finally {
      issuer.behaviour = { discovery: 'normal', jwks: 'normal' };
      await stop(gateway);
    }
  });
});
