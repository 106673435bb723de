import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type * as Jose from 'jose' with { 'resolution-mode': 'import' };

// eslint-disable-next-line @typescript-eslint/no-require-imports -- an ES module; jest's transform makes it CommonJS
const jose = require('jose') as typeof Jose;

// The program as users run it; jest's global setup builds it.
const MAIN = resolve(__dirname, '../dist/main.js');

interface Running {
  child: ChildProcess;
  base: string;
  log: Array<Record<string, unknown>>;
}

/** Starts `restbus-dev-issuer <args>` on a free port; resolves once it says it listens. */
async function startIssuer(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [MAIN, '-p', '0', '--log-format', 'json', ...args]);
  const log: Array<Record<string, unknown>> = [];
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const entry = JSON.parse(line) as Record<string, unknown>;
    log.push(entry);
    if (typeof entry.port === 'number') {
      lines.on('line', (more) => log.push(JSON.parse(more) as Record<string, unknown>));
      return { child, base: `http://127.0.0.1:${entry.port}`, log };
    }
  }
  throw new Error('the dev issuer stopped before it listened');
}

async function stopIssuer(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null) return;
  const exited = new Promise((done) => running.child.once('exit', done));
  running.child.kill('SIGTERM');
  await exited;
}

/** Runs the program to its end: exit code and what it wrote on stderr. */
function runIssuer(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, '--log-format', 'json', ...args]);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.once('exit', (code) => done({ code, stderr })));
}

async function requestToken(base: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/token`, { method: 'POST', headers, body: new URLSearchParams(form) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('restbus-dev-issuer', () => {
  let running: Running | undefined;
  // The URL the gateway reaches it by (a compose service name), not the one this test calls it at.
  const ISSUER = 'http://oidc-issuer.test:8080';
  beforeAll(async () => {
    running = await startIssuer(['--issuer', ISSUER, '--audience', 'persons-api']);
  });
  afterAll(() => stopIssuer(running));

  const verify = async (token: string) => {
    const keys = (await (await fetch(`${running!.base}/jwks`)).json()) as Jose.JSONWebKeySet;
    return (await jose.jwtVerify(token, jose.createLocalJWKSet(keys), { issuer: ISSUER })).payload;
  };

  it('publishes a discovery document naming the issuer URL it was given, and its key set under it', async () => {
    const response = await fetch(`${running!.base}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const discovery = (await response.json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({ issuer: ISSUER, jwks_uri: `${ISSUER}/jwks`, token_endpoint: `${ISSUER}/token` });
    const { keys } = (await (await fetch(`${running!.base}/jwks`)).json()) as { keys: Array<Record<string, unknown>> };
    expect(keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', kid: expect.any(String) })]);
    expect(keys[0]).not.toHaveProperty('d');
  });

  it('signs a client-credentials token for the client with the scopes asked for and the default audience', async () => {
    const basic = Buffer.from('reports:any-secret').toString('base64');
    const { status, body } = await requestToken(
      running!.base,
      { grant_type: 'client_credentials', scope: 'persons:read persons:write' },
      { authorization: `Basic ${basic}` },
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(await verify(body.access_token as string)).toMatchObject({
      iss: ISSUER,
      sub: 'reports',
      aud: 'persons-api',
      scope: 'persons:read persons:write',
    });
    expect(running!.log).toContainEqual(expect.objectContaining({ msg: 'token issued', sub: 'reports' }));
  });

  it('names the user of a password grant as the subject, and keeps an audience the request asks for', async () => {
    const { body } = await requestToken(running!.base, {
      grant_type: 'password',
      username: 'alice',
      password: 'anything',
      scope: 'persons:read',
    });
    expect(await verify(body.access_token as string)).toMatchObject({ sub: 'alice', aud: 'persons-api' });
    const asked = await requestToken(running!.base, { grant_type: 'client_credentials', aud: 'other-api' });
    expect(await verify(asked.body.access_token as string)).toMatchObject({ sub: 'dev-client', aud: 'other-api' });
  });

  it('answers a token request it cannot take with a JSON 4xx, no stack, and goes on serving', async () => {
    expect(await requestToken(running!.base, { grant_type: 'made-up' })).toEqual({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    const malformed = await fetch(`${running!.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type": "client_credentials", "scope": ',
    });
    expect(malformed.status).toBe(400);
    const text = await malformed.text();
    expect(JSON.parse(text)).toMatchObject({ error: 'invalid_request' });
    expect(text).not.toMatch(/\bat \S+:\d+/);
    const wrongType = await fetch(`${running!.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', scope: ['not', 'a', 'string'] }),
    });
    expect(wrongType.status).toBe(400);
    const oversized = await fetch(`${running!.base}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(oversized.status).toBe(413);
    expect(await oversized.json()).toEqual({ error: expect.any(String), code: 'BODY_TOO_LARGE' });
    const unmeasured = await fetch(`${running!.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new Blob(['grant_type=client_credentials']).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(unmeasured.status).toBe(400);
    expect(await unmeasured.json()).toMatchObject({ code: 'BAD_REQUEST' });
    expect((await requestToken(running!.base, { grant_type: 'client_credentials' })).status).toBe(200);
    expect(running!.child.exitCode).toBeNull();
  });
});

describe('restbus-dev-issuer settings', () => {
  it.each([
    [['--issuer', 'ftp://issuer.test'], /--issuer \/ DEV_ISSUER_URL.*http or https/],
    [['--issuer', 'http://issuer.test/?tenant=1'], /--issuer \/ DEV_ISSUER_URL.*no query/],
    [['--issuer', 'not a url'], /--issuer \/ DEV_ISSUER_URL.*not a URL/],
    [['--port', '70000'], /--port \/ DEV_ISSUER_PORT/],
  ])('refuses %j with exit code 2, naming the setting, and no stack', async (args, message) => {
    const { code, stderr } = await runIssuer(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 1 with one line naming the taken port and how to choose another', async () => {
    const taken: Server = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    try {
      const { port } = taken.address() as { port: number };
      const { code, stderr } = await runIssuer(['--port', String(port)]);
      expect(code).toBe(1);
      // The shared listen helper's wording: the port, and the flag and variable that choose another.
      expect(stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^restbus-dev-issuer: port ${port} on 127\\.0\\.0\\.1 is already in use .*--port \\d+ or DEV_ISSUER_PORT=\\d+$`,
          ),
        ),
      ]);
    } finally {
      await new Promise((done) => taken.close(done));
    }
  });
});
