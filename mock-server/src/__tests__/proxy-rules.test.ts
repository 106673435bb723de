import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import type { MockServer } from '../server/start-mock-server';
import { rawGet } from './raw-get';
import { sampleFiles, serveProject, writeProject } from './sample-project';

let backend: Server;
let silent: Server;
let project: string;
const servers: MockServer[] = [];

/** A remote that answers with what it received, so a test can see what was forwarded. */
function startEchoBackend(): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          remote: true,
          method: req.method,
          url: req.url,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (server: Server): number => (server.address() as AddressInfo).port;

beforeAll(async () => {
  backend = await startEchoBackend();
  // A remote that accepts and never answers.
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
  const deadPort = portOf(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const remote = `host: 127.0.0.1, port: ${portOf(backend)}`;
  project = await writeProject({
    ...sampleFiles(),
    'server/config.yml': `useEnvironment: default
environments:
  default:
    restapiRoot: ..
    remoteServices: []
  devProxy:
    remoteServices:
      - { uri: /users/admin, ${remote}, active: false }
      - { uri: /users, ${remote}, active: true }
      - { uri: /down, host: 127.0.0.1, port: ${deadPort}, active: true }
      - { uri: /slow, host: 127.0.0.1, port: ${portOf(silent)}, active: true }
    proxyTimeout: 300
  devProxyWithExceptions:
    remoteServices:
      - { uri: /*, ${remote}, active: true }
    proxyException:
      active: true
      urlPrefixList: [/monitoring/isAlive, /Flight/legs/.*/closeLeg]
  securedProxy:
    requireLogin: true
    remoteServices:
      - { uri: /users, ${remote}, active: true }
  inactiveExceptions:
    remoteServices:
      - { uri: /*, ${remote}, active: true }
    proxyException:
      active: false
      urlPrefixList: [/monitoring/isAlive]
`,
  });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  backend.closeAllConnections();
  silent.closeAllConnections();
  await new Promise((resolve) => backend.close(resolve));
  await new Promise((resolve) => silent.close(resolve));
  await rm(project, { recursive: true, force: true });
});

async function serve(environment: string): Promise<MockServer> {
  const server = await serveProject(project, { environment, watch: false });
  servers.push(server);
  return server;
}

const isRemote = (body: string): boolean => (JSON.parse(body) as { remote?: boolean }).remote === true;

describe('proxy rules', () => {
  it('forwards method, path, query, headers and the raw body to the first matching active rule', async () => {
    const server = await serve('devProxy');
    const response = await fetch(`${server.url}/rest/users/7?full=1&x=%20y`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
      body: '{"keep": "exactly" }',
    });
    expect(response.status).toBe(200);
    const seen = (await response.json()) as {
      method: string;
      url: string;
      headers: Record<string, string>;
      body: string;
    };
    expect(seen).toMatchObject({ method: 'POST', url: '/rest/users/7?full=1&x=%20y', body: '{"keep": "exactly" }' });
    expect(seen.headers['x-trace']).toBe('abc');
    expect(seen.headers['x-forwarded-for']).toBeDefined();
  });

  it('anchors a rule right after serviceUrlPrefix', async () => {
    const server = await serve('devProxyWithExceptions');
    expect(isRemote((await rawGet(server.url, '/rest/anything')).body)).toBe(true);
    expect(isRemote((await rawGet(server.url, '/rest')).body)).toBe(true);
    expect((await rawGet(server.url, '/restaurant')).status).toBe(404);
    expect((await rawGet(server.url, '/static/rest/x')).status).toBe(404);
    expect((await rawGet(server.url, '/data/info.txt')).body).toBe('data file\n');
    const devProxy = await serve('devProxy');
    expect((await rawGet(devProxy.url, '/rest/monitoring/isAlive?u=/users')).body).toBe('true\n');
  });

  it('lets the first matching rule decide, also when it is inactive', async () => {
    const server = await serve('devProxy');
    const admin = await rawGet(server.url, '/rest/users/admin');
    // Served here: the local /users/{id} mock.
    expect(JSON.parse(admin.body)).toEqual({ id: 1, data: 'Some mock data of the resource' });
    expect(isRemote((await rawGet(server.url, '/rest/users/1')).body)).toBe(true);
  });

  it('never forwards a request matching an active exception', async () => {
    const server = await serve('devProxyWithExceptions');
    expect((await rawGet(server.url, '/rest/monitoring/isAlive')).body).toBe('true\n');
    const leg = await rawGet(server.url, '/rest/Flight/legs/12/closeLeg');
    expect(leg.status).toBe(404);
    expect(isRemote((await rawGet(server.url, '/rest/Flight/legs')).body)).toBe(true);
  });

  it.each([
    '/rest/monitoring//isAlive',
    '/rest/MONITORING/isAlive',
    '/rest/monitoring/is%41live',
    '//rest/monitoring/isAlive',
  ])('serves %s here: an exception holds for every spelling of its path', async (path) => {
    const server = await serve('devProxyWithExceptions');
    const response = await rawGet(server.url, path);
    expect(response.body).toBe('true\n');
  });

  it.each([
    '/rest/../admin',
    '/rest/%2e%2e/admin',
    '/rest/x/.%2E/admin',
    '/rest/./users',
    '/rest/a%2fb',
    '/rest/a%5cb',
  ])('refuses %s with 400 instead of forwarding a path the remote would resolve differently', async (path) => {
    const server = await serve('devProxyWithExceptions');
    const response = await rawGet(server.url, path);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('forwards the path it matched, not the spelling the client sent', async () => {
    const server = await serve('devProxy');
    const seen = JSON.parse((await rawGet(server.url, '/rest//users/%37?q=%2F')).body) as { url: string };
    expect(seen.url).toBe('/rest/users/7?q=%2F');
  });

  it('asks for the login before forwarding when the environment requires it', async () => {
    const server = await serve('securedProxy');
    const without = await rawGet(server.url, '/rest/users/7');
    expect(without.status).toBe(401);
    expect(isRemote(without.body)).toBe(false);
    const login = `Basic ${Buffer.from('alice:s3cret:pass').toString('base64')}`;
    const response = await fetch(`${server.url}/rest/users/7`, { headers: { authorization: login } });
    expect(isRemote(await response.text())).toBe(true);
  });

  it('ignores the exceptions when proxyException is not active', async () => {
    const server = await serve('inactiveExceptions');
    expect(isRemote((await rawGet(server.url, '/rest/monitoring/isAlive')).body)).toBe(true);
  });

  it('answers 502 JSON when the remote is down', async () => {
    const server = await serve('devProxy');
    const response = await rawGet(server.url, '/rest/down');
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'PROXY_FAILED' });
    expect(response.body).toContain('ECONNREFUSED');
  });

  it('answers 502 JSON when the remote does not answer in time', async () => {
    const server = await serve('devProxy');
    const response = await rawGet(server.url, '/rest/slow');
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'PROXY_FAILED' });
  });
});
