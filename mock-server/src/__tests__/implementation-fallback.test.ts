import { rm } from 'node:fs/promises';
import type { MockServer } from '../server/start-mock-server';
import { createCapturingLogger, sampleFiles, serveProject, writeProject, type Files } from './sample-project';

// pino's number for warn.
const WARN = 40;

/**
 * A project as upstream rest-tool made it, whose api.js throws while it loads. Upstream's begins with
 * require('rest-tool-common'), which such a project does not have: that case runs against the built program
 * (upstream-harness.test.ts), since jest's require, which the server gets in here, crashes on a missing package.
 */
function upstreamProject(): Files {
  const files = sampleFiles();
  return {
    ...files,
    'config.yml': (files['config.yml'] as string).replace('  - /broken\n', '  - /customers\n  - /orders\n'),
    'server/api.js': `var common = undefined;
var services = common.services;
exports.getCustomers = function (request, response) { response.json(services); };
exports.getCustomer = function (request, response) { response.json(services); };
`,
    'services/customers/service.yml': `name: Customers
description: The customers
uriTemplate: /customers
methods:
  GET:
    summary: List the customers
    implementation: api.getCustomers
    responses:
      - name: OK
        statusCode: 200
        reason: fine
        headers: [{ field: X-Total-Count, content: '2' }]
        mockBody: getCustomers-responseBody.json
  PUT:
    summary: Replace the customers
    implementation: api.getCustomer
    responses: [{ name: OK, statusCode: 200, reason: fine }]
`,
    'services/customers/getCustomers-responseBody.json': '[{"id":1},{"id":2}]\n',
    'services/orders/service.yml': `name: Orders
description: The orders
uriTemplate: /orders
methods:
  GET:
    summary: List the orders, from a file nobody wrote
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: getOrders-responseBody.json }
`,
  };
}

let project: string;
let server: MockServer;
let strict: MockServer;
const log = createCapturingLogger('warn');

beforeAll(async () => {
  project = await writeProject(upstreamProject());
  server = await serveProject(project, { watch: false, logger: log.logger });
  strict = await serveProject(project, { watch: false, strict: true });
});
afterAll(async () => {
  await server.close();
  await strict.close();
  await rm(project, { recursive: true, force: true });
});

const warningsAbout = (text: string) =>
  log.lines.filter((line) => line.level === WARN && String(line.msg).includes(text));

describe('an implementation module that cannot be loaded', () => {
  it('answers with the OK mock file of the method and an X-Mock-Warning saying why', async () => {
    const response = await fetch(`${server.url}/rest/customers`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('[{"id":1},{"id":2}]\n');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-total-count')).toBe('2');
    expect(response.headers.get('x-mock-warning')).toBe(
      'the implementation api.getCustomers is not available: the module server/api.js failed to load (see the ' +
        'server log); answered with services/customers/getCustomers-responseBody.json',
    );
  });

  it('answers with the service descriptor as JSON and an X-Mock-Warning when the method has no OK mock file', async () => {
    const response = await fetch(`${server.url}/rest/customers`, { method: 'PUT' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({
      name: 'Customers',
      uriTemplate: '/customers',
      contentPath: 'services/customers',
      methods: { PUT: { implementation: 'api.getCustomer' } },
    });
    expect(response.headers.get('x-mock-warning')).toBe(
      'the implementation api.getCustomer is not available: the module server/api.js failed to load (see the ' +
        'server log); answered with the descriptor',
    );
  });

  it('logs why once, at warn level, naming the module and the loader’s reason', async () => {
    for (let i = 0; i < 3; i++) await fetch(`${server.url}/rest/customers`);
    const lines = warningsAbout('server/api.js');
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toMatch(/^server\/api\.js: failed to load: Cannot read properties of undefined/);
    expect(lines[0].msg).toMatch(/answer with their OK mock file, else their descriptor, and an X-Mock-Warning/);
  });

  it('answers 500 IMPLEMENTATION_UNAVAILABLE with --strict, mock file or not', async () => {
    for (const method of ['GET', 'PUT']) {
      const response = await fetch(`${strict.url}/rest/customers`, { method });
      expect(response.status).toBe(500);
      expect(response.headers.get('x-mock-warning')).toBeNull();
      const body = (await response.json()) as { code: string; error: string };
      expect(body.code).toBe('IMPLEMENTATION_UNAVAILABLE');
      expect(body.error).toContain('server/api.js failed to load');
      expect(body.error).not.toContain(project);
    }
  });
});

describe('a mock file that is missing', () => {
  it('answers with the descriptor and an X-Mock-Warning naming the project-relative file', async () => {
    const response = await fetch(`${server.url}/rest/orders`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: 'Orders', uriTemplate: '/orders' });
    const warning = response.headers.get('x-mock-warning');
    expect(warning).toBe(
      'the mock file services/orders/getOrders-responseBody.json does not exist; answered with the descriptor',
    );
    expect(warning).not.toContain(project);
  });

  it('answers a selected response whose file is missing with the OK mock file', async () => {
    const response = await fetch(`${server.url}/rest/users`, { headers: { 'X-Mock-Response': 'Missing' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { id: 1, data: 'some mock data' },
      { id: 2, data: 'more' },
    ]);
    expect(response.headers.get('x-mock-warning')).toBe(
      'the mock file services/users/nowhere.json does not exist; answered with ' +
        'services/users/getCollection-responseBody.json',
    );
  });

  it('logs the missing file once, at warn level, however many requests it answers', async () => {
    for (let i = 0; i < 3; i++) await fetch(`${server.url}/rest/orders`);
    const lines = warningsAbout('getOrders-responseBody.json');
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toMatch(
      /^the mock file services\/orders\/getOrders-responseBody\.json does not exist: GET \/orders answers from a fallback/,
    );
  });

  it('answers 500 MOCK_UNAVAILABLE with --strict', async () => {
    for (const init of [{}, { headers: { 'X-Mock-Response': 'Missing' } }]) {
      const path = 'headers' in init ? '/rest/users' : '/rest/orders';
      const response = await fetch(`${strict.url}${path}`, init);
      expect(response.status).toBe(500);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('x-mock-warning')).toBeNull();
      expect(await response.json()).toMatchObject({ code: 'MOCK_UNAVAILABLE' });
    }
  });

  it('leaves the answers that need no fallback without X-Mock-Warning', async () => {
    for (const path of ['/rest/users', '/rest/monitoring/isAlive']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-mock-warning')).toBeNull();
    }
  });
});
