import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startMockProcess, useTempDir, type MockProcess } from './__tests__/start-mock-process';

/**
 * One API in each dialect, for Prism's query selectors (`__code`, `__example`, `__dynamic`), HEAD on a path without
 * GET, and HTTP Basic credentials that are no `base64(user:password)`. The schema builds `{id: 1, name: 'Sample'}`;
 * the example is `{id: 7, name: 'Rex'}`, so a test can tell which one answered.
 */
const pet = {
  type: 'object',
  properties: { id: { type: 'integer', default: 1 }, name: { type: 'string', default: 'Sample' } },
};
const rex = { id: 7, name: 'Rex' };
const tom = { id: 8, name: 'Tom' };
const none = { type: 'object', properties: { error: { type: 'string', default: 'none' } } };

const swagger2 = {
  swagger: '2.0',
  info: { title: 'pets', version: '1' },
  produces: ['application/json'],
  securityDefinitions: { basic: { type: 'basic' } },
  paths: {
    '/pets': {
      get: {
        parameters: [{ name: 'limit', in: 'query', type: 'integer', maximum: 5 }],
        responses: {
          '200': { description: 'pets', schema: pet, examples: { 'application/json': rex } },
          '404': { description: 'none', schema: none },
        },
      },
    },
    '/orders': { post: { responses: { '201': { description: 'made', schema: pet } } } },
    '/vault': {
      get: { security: [{ basic: [] }], responses: { '200': { description: 'open', schema: { type: 'string' } } } },
    },
  },
};

const openapi3 = (version: string) => ({
  openapi: version,
  info: { title: 'pets', version: '1' },
  components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
  paths: {
    '/pets': {
      get: {
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 5 } }],
        responses: {
          '200': {
            description: 'pets',
            content: { 'application/json': { schema: pet, examples: { rex: { value: rex }, tom: { value: tom } } } },
          },
          '404': { description: 'none', content: { 'application/json': { schema: none } } },
        },
      },
    },
    '/orders': {
      post: { responses: { '201': { description: 'made', content: { 'application/json': { schema: pet } } } } },
    },
    '/vault': {
      get: {
        security: [{ basic: [] }],
        responses: { '200': { description: 'open', content: { 'application/json': { schema: { type: 'string' } } } } },
      },
    },
  },
});

const documents: Array<[string, string, unknown]> = [
  ['OpenAPI 2.0', 'pets20.json', swagger2],
  ['OpenAPI 3.0', 'pets30.json', openapi3('3.0.3')],
  ['OpenAPI 3.1', 'pets31.json', openapi3('3.1.0')],
];

const dir = useTempDir('restbus-mock-prism-');

const errorOf = async (response: Response) => [
  response.status,
  (await response.json()) as { code: string; error: string },
];

describe.each(documents)('restbus-gateway -m --validate on %s', (name, file, document) => {
  const named = name !== 'OpenAPI 2.0'; // Swagger 2 examples have no names
  let mock: MockProcess;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${mock.url}${path}`, { headers });
  beforeAll(async () => {
    await writeFile(join(dir.path, file), JSON.stringify(document));
    mock = await startMockProcess(join(dir.path, file), ['--validate']);
  });
  afterAll(() => mock?.child.kill('SIGTERM'));

  it('answers the response ?__code= names, and --validate takes the selector for no unknown parameter', async () => {
    const missing = await get('/pets?__code=404');
    expect([missing.status, await missing.json()]).toEqual([404, { error: 'none' }]);
    const alongside = await get('/pets?limit=2&__code=404');
    expect([alongside.status, await alongside.json()]).toEqual([404, { error: 'none' }]);
    const invalid = await get('/pets?limit=9&__code=404');
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ code: 'REQUEST_INVALID' });
  });

  it('answers 400 BAD_REQUEST naming the declared codes for a ?__code= the operation does not declare or that is no status', async () => {
    const [status, body] = await errorOf(await get('/pets?__code=503'));
    expect([status, body]).toEqual([400, expect.objectContaining({ code: 'BAD_REQUEST' })]);
    expect(body).toMatchObject({ error: expect.stringMatching(/__code=503.*200.*404/) });
    const [badStatus, bad] = await errorOf(await get('/pets?__code=abc'));
    expect([badStatus, bad]).toEqual([400, expect.objectContaining({ code: 'BAD_REQUEST' })]);
  });

  it('reads no query selector when the request has a Prefer header, as Prism does', async () => {
    const preferred = await get('/pets?__code=404', { prefer: 'code=200' });
    expect([preferred.status, await preferred.json()]).toEqual([200, rex]);
    const other = await get('/pets?__code=404', { prefer: 'respond-async' });
    expect(other.status).toBe(200);
    const header = await get('/pets?__code=200', { prefer: 'code=404' });
    expect(header.status).toBe(404);
  });

  it('answers the example ?__example= names, and 400 naming the examples for one there is not', async () => {
    const chosen = await get('/pets?__example=tom');
    expect([chosen.status, await chosen.json()]).toEqual([200, named ? tom : rex]);
    const unknown = await get('/pets?__example=felix');
    if (!named) {
      expect([unknown.status, await unknown.json()]).toEqual([200, rex]);
      return;
    }
    const [status, body] = await errorOf(unknown);
    expect([status, body]).toEqual([400, expect.objectContaining({ code: 'BAD_REQUEST' })]);
    expect(body).toMatchObject({ error: expect.stringMatching(/__example=felix.*rex.*tom/) });
  });

  it('answers ?__dynamic=true with the body built from the schema, false with the example, else 400', async () => {
    const dynamic = await get('/pets?__dynamic=true');
    expect([dynamic.status, await dynamic.json()]).toEqual([200, { id: 1, name: 'Sample' }]);
    const preferred = await get('/pets', { prefer: 'dynamic=true' });
    expect(await preferred.json()).toEqual({ id: 1, name: 'Sample' });
    const fixed = await get('/pets?__dynamic=false');
    expect([fixed.status, await fixed.json()]).toEqual([200, rex]);
    const [status, body] = await errorOf(await get('/pets?__dynamic=maybe'));
    expect([status, body]).toEqual([400, expect.objectContaining({ code: 'BAD_REQUEST' })]);
    if (named) {
      // A named example is asked for by name: it wins over dynamic, as in Prism.
      const both = await get('/pets?__example=tom&__dynamic=true');
      expect(await both.json()).toEqual(tom);
    }
  });

  it('keeps the answers of different selectors apart', async () => {
    const answers = [];
    for (const query of ['', '?__code=404', '', '?__dynamic=true', '?__code=404']) {
      const response = await get(`/pets${query}`);
      answers.push([response.status, await response.json()]);
    }
    expect(answers).toEqual([
      [200, rex],
      [404, { error: 'none' }],
      [200, rex],
      [200, { id: 1, name: 'Sample' }],
      [404, { error: 'none' }],
    ]);
  });

  it('answers HEAD on a path without GET with 405 and the methods the path has, and on one with GET with no body', async () => {
    const head = await fetch(`${mock.url}/orders`, { method: 'HEAD' });
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'OPTIONS, POST']);
    const withGet = await fetch(`${mock.url}/pets`, { method: 'HEAD' });
    expect([withGet.status, withGet.headers.get('content-type'), await withGet.text()]).toEqual([
      200,
      'application/json; charset=utf-8',
      '',
    ]);
    expect(Number(withGet.headers.get('content-length'))).toBe(JSON.stringify(rex).length);
  });

  it('answers 401 with the Basic challenge to Basic credentials that are no base64 of user:password, as to none', async () => {
    const answers = [];
    for (const token of ['', 'Basic', 'Basic !!not-base64!!', `Basic ${Buffer.from('nocolon').toString('base64')}`]) {
      const response = await get('/vault', token ? { authorization: token } : {});
      const body = (await response.json()) as { code: string };
      answers.push([response.status, response.headers.get('www-authenticate'), body.code]);
    }
    expect(answers).toEqual(Array(4).fill([401, 'Basic realm="restbus"', 'UNAUTHORIZED']));
    const fine = await get('/vault', { authorization: `Basic ${Buffer.from('ann:pa:ss').toString('base64')}` });
    expect(fine.status).toBe(200);
    const unpadded = await get('/vault', { authorization: 'Basic YTpiYw' }); // a:bc, its == left out
    expect(unpadded.status).toBe(200);
  });
});
