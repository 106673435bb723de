import { rm } from 'node:fs/promises';
import type { MockServer } from '../server/start-mock-server';
import { sampleFiles, serveProject, writeProject } from './sample-project';

let project: string;
let server: MockServer;

beforeAll(async () => {
  project = await writeProject(sampleFiles());
  server = await serveProject(project, { watch: false });
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

const call = (path: string, init?: RequestInit): Promise<Response> => fetch(`${server.url}${path}`, init);

async function expectJsonError(response: Response, status: number, code: string): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const body = (await response.json()) as { error: string; code: string };
  expect(body.code).toBe(code);
  expect(body.error).not.toMatch(/\n\s+at /);
  return body.error;
}

describe('the services of a project', () => {
  it('answers isAlive with exactly true and a newline, as JSON, with the API version header', async () => {
    const response = await call('/rest/monitoring/isAlive');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-application-api-version')).toBe('v1.2.3');
    expect(await response.text()).toBe('true\n');
  });

  it('sends the OK mock file with its declared status, headers and cookies', async () => {
    const response = await call('/rest/users');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-total-count')).toBe('2');
    expect(response.headers.get('set-cookie')).toBe('last-list=users; Path=/');
    expect(response.headers.get('x-application-api-version')).toBe('v1.2.3');
    expect(await response.text()).toBe('[{"id":1,"data":"some mock data"},{"id":2,"data":"more"}]\n');
  });

  it('matches path parameters as one segment, case-insensitively, with an optional trailing slash', async () => {
    expect(await (await call('/rest/users/42')).json()).toEqual({ id: 1, data: 'Some mock data of the resource' });
    expect((await call('/rest/USERS/42/')).status).toBe(200);
    expect((await call('/rest/users/42/extra')).status).toBe(404);
  });

  it('sends a non-JSON mock file byte for byte with its declared content type', async () => {
    const response = await call('/rest/report');
    expect(response.headers.get('content-type')).toBe('text/csv');
    expect(Buffer.from(await response.arrayBuffer()).toString('latin1')).toBe('a,b\r\n1,"x y"\r\n');
  });

  it('selects another declared response by the X-Mock-Response header', async () => {
    const response = await call('/rest/users', { headers: { 'X-Mock-Response': 'Empty' } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'no users' });
  });

  it('refuses an undeclared X-Mock-Response name with 400 listing the declared ones', async () => {
    const message = await expectJsonError(
      await call('/rest/users', { headers: { 'X-Mock-Response': 'Nope' } }),
      400,
      'BAD_REQUEST',
    );
    expect(message).toContain('"OK", "Empty", "Missing"');
  });

  it('answers a missing mock file with the OK one and an X-Mock-Warning naming the relative file', async () => {
    const response = await call('/rest/users', { headers: { 'X-Mock-Response': 'Missing' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-mock-warning')).toBe(
      'the mock file services/users/nowhere.json does not exist; answered with services/users/getCollection-responseBody.json',
    );
  });

  it('answers 500 naming the relative file when a mock file is missing, with --strict', async () => {
    const strict = await serveProject(project, { watch: false, strict: true });
    try {
      const message = await expectJsonError(
        await fetch(`${strict.url}/rest/users`, { headers: { 'X-Mock-Response': 'Missing' } }),
        500,
        'MOCK_UNAVAILABLE',
      );
      expect(message).toBe('the mock file services/users/nowhere.json does not exist');
      expect(message).not.toContain(project);
    } finally {
      await strict.close();
    }
  });

  it('answers with the descriptor itself when there is neither implementation nor mock file, without machine paths', async () => {
    const response = await call('/rest/echo', { method: 'PUT' });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(project);
    expect(JSON.parse(text)).toMatchObject({
      name: 'Echo',
      uriTemplate: '/echo',
      contentPath: 'services/echo',
      methods: { PUT: { summary: 'Echo' } },
    });
  });

  it('uses the declared status of a response without a body, and frames it as one: no Content-Length on a 204', async () => {
    const response = await call('/rest/users/7', { method: 'DELETE' });
    expect(response.status).toBe(204);
    // The descriptor's length on a 204 that sends no body kept a client waiting for bytes that never came, on a
    // keep-alive connection until the server closed it (a generated DELETE test took 6 s instead of 0.5).
    expect(response.headers.get('content-length')).toBeNull();
    expect(await response.text()).toBe('');
  });

  it('calls an implementation with the request, the response and the descriptor that reads mock files', async () => {
    const response = await call('/rest/users', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: 'mine' }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ id: 3, data: 'mine', service: 'Users' });
  });

  it('turns a throwing or rejecting implementation into 500 JSON and keeps serving', async () => {
    // What failed is in the log only (a message may name a file or a password); the client gets its id.
    expect(await expectJsonError(await call('/rest/broken/x'), 500, 'HANDLER_FAILED')).toMatch(
      /^the implementation api\.fails failed \(failure [0-9a-f-]{36} in the server log\)$/,
    );
    expect(await expectJsonError(await call('/rest/broken/x', { method: 'PUT' }), 500, 'HANDLER_FAILED')).not.toContain(
      'boom',
    );
    expect((await call('/rest/monitoring/isAlive')).status).toBe(200);
  });

  it('answers with the descriptor and an X-Mock-Warning naming the module or function that is missing', async () => {
    for (const [method, reason] of [
      ['POST', 'the module server/missing.js does not exist'],
      ['DELETE', 'the module server/api.js has no function nope'],
    ]) {
      const response = await call('/rest/broken/x', { method });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ name: 'Broken', contentPath: 'services/broken' });
      expect(response.headers.get('x-mock-warning')).toContain(reason);
    }
    expect((await call('/rest/users')).status).toBe(200);
  });

  it('answers 500 naming the module or function that is missing with --strict, and the other services keep working', async () => {
    const strict = await serveProject(project, { watch: false, strict: true });
    try {
      const at = (path: string, init?: RequestInit) => fetch(`${strict.url}${path}`, init);
      expect(
        await expectJsonError(await at('/rest/broken/x', { method: 'POST' }), 500, 'IMPLEMENTATION_UNAVAILABLE'),
      ).toContain('server/missing.js does not exist');
      expect(
        await expectJsonError(await at('/rest/broken/x', { method: 'DELETE' }), 500, 'IMPLEMENTATION_UNAVAILABLE'),
      ).toContain('has no function nope');
      expect((await at('/rest/users')).status).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('delays an answer by X-Mock-Delay milliseconds', async () => {
    // The server runs in this process, on the same timers: one set before the request for 290 ms always fires
    // before the server's 300 ms delay, set after it, ends; without the delay the answer would come first.
    let delayPassed = false;
    const timer = setTimeout(() => (delayPassed = true), 290);
    const response = await call('/rest/users', { headers: { 'X-Mock-Delay': '300' } }).finally(() =>
      clearTimeout(timer),
    );
    expect(response.status).toBe(200);
    expect(delayPassed).toBe(true);
  });

  it('refuses an X-Mock-Delay that is not a number of milliseconds up to 30 s', async () => {
    await expectJsonError(await call('/rest/users', { headers: { 'X-Mock-Delay': '30001' } }), 400, 'BAD_REQUEST');
    await expectJsonError(await call('/rest/users', { headers: { 'X-Mock-Delay': 'soon' } }), 400, 'BAD_REQUEST');
  });

  it('overrides the method of a POST by header or by a _method field', async () => {
    expect(
      (await call('/rest/users/7', { method: 'POST', headers: { 'X-HTTP-Method-Override': 'DELETE' } })).status,
    ).toBe(204);
    const form = await call('/rest/users/7', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '_method=DELETE',
    });
    expect(form.status).toBe(204);
  });

  it('answers malformed JSON with 400 REQUEST_INVALID, naming the body, as the gateway does', async () => {
    const response = await call('/rest/users', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    });
    expect(await expectJsonError(response, 400, 'REQUEST_INVALID')).toBe('the body is not valid JSON');
  });

  it('keeps a session for an implementation in a connect.sid cookie, and parses cookies', async () => {
    const first = await call('/rest/session', { headers: { cookie: 'theme=dark' } });
    expect(await first.json()).toEqual({ count: 1, cookies: { theme: 'dark' } });
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^connect\.sid=s%3A[^;]+; Path=\/; HttpOnly$/);
    const second = await call('/rest/session', { headers: { cookie: cookie.split(';')[0] } });
    expect(await second.json()).toMatchObject({ count: 2 });
  });

  it('sets no session cookie on a mock answer', async () => {
    const response = await call('/rest/users/1');
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('answers a path of a service with a method it lacks with 405 and Allow', async () => {
    const response = await call('/rest/users/1', { method: 'PUT' });
    await expectJsonError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('GET, DELETE, HEAD');
    const options = await call('/rest/users/1', { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, DELETE, HEAD, OPTIONS');
  });

  it('answers HEAD like GET without a body', async () => {
    const response = await call('/rest/users', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('58');
    expect(await response.text()).toBe('');
  });

  it('answers anything else with 404 JSON', async () => {
    expect(await expectJsonError(await call('/rest/nope'), 404, 'NOT_FOUND')).toBe(
      'nothing is served at GET /rest/nope',
    );
  });
});

describe('a project whose environment sets requireLogin', () => {
  let secured: MockServer;
  beforeAll(async () => {
    secured = await serveProject(project, { environment: 'secured', watch: false });
  });
  afterAll(() => secured.close());

  it('answers services 401 with WWW-Authenticate without the credentials', async () => {
    const response = await fetch(`${secured.url}/rest/users`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="demo", charset="UTF-8"');
    const wrong = await fetch(`${secured.url}/rest/users`, {
      headers: { authorization: `Basic ${Buffer.from('alice:wrong').toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
  });

  const login = { authorization: `Basic ${Buffer.from('alice:s3cret:pass').toString('base64')}` };
  const everything = ['/rest/users', '/data/info.txt', '/services/users/service.yml', '/rest/nope', '/index.html'];

  it('serves everything with the project loginCredentials', async () => {
    expect((await fetch(`${secured.url}/rest/users`, { headers: login })).status).toBe(200);
    expect((await fetch(`${secured.url}/data/info.txt`, { headers: login })).status).toBe(200);
  });

  it.each(everything)('answers %s 401 without the login: services, static folders, descriptors, 404s', async (path) => {
    const response = await fetch(`${secured.url}${path}`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('answers the paths the environment leaves open (openPaths) without the login, whatever their spelling', async () => {
    expect((await fetch(`${secured.url}/rest/monitoring/isAlive`)).status).toBe(200);
    expect((await fetch(`${secured.url}/REST/Monitoring//isAlive`)).status).toBe(200);
    expect((await fetch(`${secured.url}/rest/monitoringX`)).status).toBe(401);
  });
});
