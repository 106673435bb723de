import { rm } from 'node:fs/promises';
import type { MockServer } from '../server/start-mock-server';
import { serveProject, shopConfig, writeProject, type Files } from './sample-project';

// A project as rest-tool makes it: a COLLECTION and the RESOURCE below it, with the collection's mock file as seed.
const files = (environment: string, collectionExtra = ''): Files => ({
  'server/config.yml': `environments:\n  default:\n    restapiRoot: ..\n${environment}`,
  'config.yml': shopConfig(['/customers', '/customers/customer', '/status']),
  'services/customers/service.yml': `name: Customers
description: The customers
style: COLLECTION
uriTemplate: /customers
${collectionExtra}methods:
  GET:
    summary: List
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: getCollection-responseBody.json }
  POST:
    summary: Add
    responses:
      - { name: OK, statusCode: 201, reason: created, mockBody: postCollection-responseBody.json }
`,
  'services/customers/getCollection-responseBody.json': '[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}]\n',
  'services/customers/postCollection-responseBody.json': '{"id":99,"name":"from the mock file"}\n',
  'services/customers/customer/service.yml': `name: Customer
description: One customer
style: RESOURCE
uriTemplate: /customers/{customerId}
methods:
  GET:
    summary: Read
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: getResource-responseBody.json }
  PUT:
    summary: Replace
    responses:
      - { name: OK, statusCode: 200, reason: fine }
  DELETE:
    summary: Remove
    responses:
      - { name: OK, statusCode: 204, reason: gone }
`,
  'services/customers/customer/getResource-responseBody.json': '{"id":1,"name":"from the mock file"}\n',
  'services/status/service.yml': `name: Status
description: An operation
style: OPERATION
uriTemplate: /status
methods:
  GET:
    summary: Status
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: status.json }
`,
  'services/status/status.json': '{"up":true}\n',
});

let dir: string;
let server: MockServer;
const open = async (projectFiles: Files): Promise<void> => {
  dir = await writeProject(projectFiles);
  server = await serveProject(dir, { watch: false });
};
afterEach(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const send = async (method: string, path: string, body?: unknown, cookie?: string) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(cookie === undefined ? {} : { cookie }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
};

describe('a stateful collection', () => {
  it('lists the seed, adds with POST (201, Location, the next id), and reads, replaces and removes by id', async () => {
    await open(files('    stateful: true\n'));
    const listed = await send('GET', '/rest/customers');
    expect(listed).toMatchObject({ status: 200, body: [{ id: 1 }, { id: 2 }] });
    // As the mock file would have been sent: generated tests compare the header exactly.
    expect(listed.headers.get('content-type')).toBe('application/json');

    const added = await send('POST', '/rest/customers', { name: 'Barbara' });
    expect(added).toMatchObject({ status: 201, body: { id: 3, name: 'Barbara' } });
    expect(added.headers.get('location')).toBe('/rest/customers/3');
    expect(await send('GET', '/rest/customers/3')).toMatchObject({ status: 200, body: { id: 3, name: 'Barbara' } });

    expect(await send('PUT', '/rest/customers/1', { name: 'Ada L.' })).toMatchObject({
      status: 200,
      body: { id: 1, name: 'Ada L.' },
    });
    expect(await send('DELETE', '/rest/customers/2')).toMatchObject({ status: 204 });
    expect(await send('GET', '/rest/customers')).toMatchObject({
      body: [
        { id: 1, name: 'Ada L.' },
        { id: 3, name: 'Barbara' },
      ],
    });
  });

  it('answers an unknown id with a JSON 404, a taken id with 409, and a body that is not an object with 400', async () => {
    await open(files('    stateful: true\n'));
    for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
      expect(await send(method, '/rest/customers/77', body)).toMatchObject({
        status: 404,
        body: { code: 'NOT_FOUND', error: expect.stringContaining('77') },
      });
    }
    expect(await send('POST', '/rest/customers', { id: 1, name: 'again' })).toMatchObject({
      status: 409,
      body: { code: 'CONFLICT' },
    });
    expect(await send('POST', '/rest/customers', ['not', 'an', 'object'])).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST' },
    });
  });

  it('starts again from the seed after POST /-/reset', async () => {
    await open(files('    stateful: true\n'));
    await send('POST', '/rest/customers', { name: 'Barbara' });
    await send('DELETE', '/rest/customers/1');
    expect(await send('POST', '/-/reset')).toMatchObject({ status: 204 });
    expect(await send('GET', '/rest/customers')).toMatchObject({ body: [{ id: 1 }, { id: 2 }] });
  });

  it('can be asked for by one COLLECTION descriptor instead of the whole environment', async () => {
    await open(files('', 'stateful: true\n'));
    await send('POST', '/rest/customers', { id: 'c-9', name: 'Barbara' });
    expect(await send('GET', '/rest/customers/c-9')).toMatchObject({ status: 200, body: { id: 'c-9' } });
  });

  it('leaves the mock files answering when no one asks for state, and POST /-/reset unserved', async () => {
    await open(files(''));
    expect(await send('POST', '/rest/customers', { name: 'Barbara' })).toMatchObject({
      status: 201,
      body: { id: 99, name: 'from the mock file' },
    });
    expect(await send('GET', '/rest/customers/5')).toMatchObject({ status: 200, body: { name: 'from the mock file' } });
    expect((await send('POST', '/-/reset')).status).toBe(404);
  });

  it('keeps serving other services from their mock files in a stateful environment', async () => {
    await open(files('    stateful: true\n'));
    expect(await send('GET', '/rest/status')).toMatchObject({ status: 200, body: { up: true } });
  });

  it('keeps one state per client session with stateful: session', async () => {
    await open(files('    stateful: session\n'));
    const first = await send('POST', '/rest/customers', { name: 'Barbara' });
    expect(first).toMatchObject({ status: 201, body: { id: 3 } });
    const cookie = first.headers.get('set-cookie')?.split(';')[0];
    expect(cookie).toMatch(/^connect\.sid=/);
    expect(await send('GET', '/rest/customers/3', undefined, cookie)).toMatchObject({ status: 200 });
    // Another client (no cookie) starts from the seed.
    expect(await send('GET', '/rest/customers/3')).toMatchObject({ status: 404 });
    expect(await send('GET', '/rest/customers')).toMatchObject({ body: [{ id: 1 }, { id: 2 }] });
  });

  it('refuses a stateful that is not true, false or session, naming the file and line', async () => {
    dir = await writeProject(files('    stateful: "yes"\n'));
    await expect(serveProject(dir, { watch: false })).rejects.toMatchObject({
      code: 'PROJECT_INVALID',
      message: expect.stringMatching(/^server\/config\.yml:\d+: .*stateful: must be one of true, false, "session"$/m),
    });
  });
});
