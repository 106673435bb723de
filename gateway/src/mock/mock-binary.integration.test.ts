import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startMockProcess, useTempDir, type MockProcess } from './__tests__/start-mock-process';

/** One small pet API written in each dialect the gateway reads; the mock must answer it the same way. */
const pet = {
  type: 'object',
  required: ['name'],
  properties: { id: { type: 'integer', default: 1 }, name: { type: 'string', example: 'Rex' } },
};
const swagger2 = {
  swagger: '2.0',
  info: { title: 'pets', version: '1' },
  produces: ['application/json'],
  securityDefinitions: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } },
  paths: {
    '/pets': {
      get: {
        parameters: [{ name: 'limit', in: 'query', type: 'integer', maximum: 5 }],
        responses: {
          '200': { description: 'pets', schema: { type: 'array', items: pet } },
          '404': {
            description: 'none',
            schema: { type: 'object', properties: { error: { type: 'string', default: 'none' } } },
          },
        },
      },
      post: {
        security: [{ key: [] }],
        parameters: [{ name: 'pet', in: 'body', required: true, schema: pet }],
        responses: {
          '201': {
            description: 'made',
            schema: pet,
            headers: { Location: { type: 'string', 'x-example': '/pets/1' } },
          },
        },
      },
    },
  },
};
const openapi3 = (version: string): string => `
openapi: ${version}
info: { title: pets, version: '1' }
components:
  securitySchemes: { key: { type: apiKey, in: header, name: X-Key } }
  schemas:
    Pet: ${JSON.stringify(pet)}
paths:
  /pets:
    get:
      parameters: [{ name: limit, in: query, schema: { type: integer, maximum: 5 } }]
      responses:
        '200': { description: pets, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Pet' } } } } }
        '404': { description: none, content: { application/json: { schema: { type: object, properties: { error: { type: string, default: none } } } } } }
    post:
      security: [{ key: [] }]
      requestBody: { required: true, content: { application/json: { schema: { $ref: '#/components/schemas/Pet' } } } }
      responses:
        '201':
          description: made
          headers: { Location: { schema: { type: string, example: /pets/1 } } }
          content: { application/json: { schema: { $ref: '#/components/schemas/Pet' } } }
`;

const documents: Array<[string, string, string]> = [
  ['OpenAPI 2.0 in JSON', 'pets.json', JSON.stringify(swagger2)],
  ['OpenAPI 3.0 in YAML', 'pets30.yaml', openapi3('3.0.3')],
  ['OpenAPI 3.1 in YAML', 'pets31.yml', openapi3('3.1.0')],
];

const dir = useTempDir('restbus-mock-binary-');

describe.each(documents)('restbus-gateway -m --validate on %s', (_name, file, text) => {
  let mock: MockProcess;
  beforeAll(async () => {
    await writeFile(join(dir.path, file), text);
    mock = await startMockProcess(join(dir.path, file), ['--validate']);
  });
  afterAll(() => mock?.child.kill('SIGTERM'));

  it('answers the lowest 2xx with a body built from the schema, and HEAD with none', async () => {
    const response = await fetch(`${mock.url}/pets`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([{ id: 1, name: 'Rex' }]);
    const head = await fetch(`${mock.url}/pets`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('answers the response Prefer: code= names, and 406 when Accept takes none of its types', async () => {
    const missing = await fetch(`${mock.url}/pets`, { headers: { prefer: 'code=404' } });
    expect([missing.status, await missing.json()]).toEqual([404, { error: 'none' }]);
    const xml = await fetch(`${mock.url}/pets`, { headers: { accept: 'application/xml' } });
    expect(xml.status).toBe(406);
    expect(await xml.json()).toMatchObject({ code: 'NOT_ACCEPTABLE' });
  });

  it('answers 400 for an invalid query, 401 without the API key, 400 for an invalid body, else 201 with its headers', async () => {
    expect((await fetch(`${mock.url}/pets?limit=9`)).status).toBe(400);
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${mock.url}/pets`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const anonymous = await post({}, '{"name":"Tom"}');
    expect([anonymous.status, anonymous.headers.get('www-authenticate')]).toEqual([
      401,
      'ApiKey in="header", name="X-Key"',
    ]);
    const invalid = await post({ 'x-key': 'k' }, '{"id":"two"}');
    expect(invalid.status).toBe(400);
    const problems = ((await invalid.json()) as { problems: Array<{ location: string }> }).problems;
    expect(problems.map((problem) => problem.location)).toContain('body/id');
    const made = await post({ 'x-key': 'k' }, '{"name":"Tom"}');
    expect([made.status, made.headers.get('location'), await made.json()]).toEqual([
      201,
      '/pets/1',
      { id: 1, name: 'Rex' },
    ]);
  });
});

/** The rules the pet API above does not reach: named examples, q-values, 204, bearer security. */
const store = `
openapi: 3.0.3
info: { title: store, version: '1' }
components:
  securitySchemes: { token: { type: http, scheme: bearer } }
paths:
  /orders/{id}:
    get:
      security: [{ token: [] }]
      responses:
        '200':
          description: an order
          content:
            application/json:
              examples:
                open: { value: { id: 1, state: open } }
                shipped: { value: { id: 1, state: shipped } }
            text/csv:
              example: "id,state\\n1,open"
    delete:
      responses:
        '204': { description: deleted }
`;

describe('restbus-gateway -m on examples, q-values, 204 and bearer security', () => {
  let mock: MockProcess;
  const bearer = { authorization: 'Bearer t' };
  beforeAll(async () => {
    await writeFile(join(dir.path, 'store.yml'), store);
    mock = await startMockProcess(join(dir.path, 'store.yml'), ['--validate']);
  });
  afterAll(() => mock?.child.kill('SIGTERM'));

  it('answers 401 with a Bearer challenge without credentials, and the first named example with them', async () => {
    const anonymous = await fetch(`${mock.url}/orders/1`);
    expect([anonymous.status, anonymous.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="restbus"']);
    const first = await fetch(`${mock.url}/orders/1`, { headers: bearer });
    expect([first.status, await first.json()]).toEqual([200, { id: 1, state: 'open' }]);
  });

  it('answers the example Prefer: example= names, and the media type Accept weighs highest', async () => {
    const shipped = await fetch(`${mock.url}/orders/1`, { headers: { ...bearer, prefer: 'example=shipped' } });
    expect(await shipped.json()).toEqual({ id: 1, state: 'shipped' });
    const csv = await fetch(`${mock.url}/orders/1`, {
      headers: { ...bearer, accept: 'application/json;q=0.5, text/csv;q=0.9' },
    });
    expect([csv.headers.get('content-type'), await csv.text()]).toEqual([
      'text/csv; charset=utf-8',
      'id,state\n1,open',
    ]);
  });

  it('answers 204 without a body', async () => {
    const deleted = await fetch(`${mock.url}/orders/1`, { method: 'DELETE' });
    expect([deleted.status, await deleted.text()]).toEqual([204, '']);
  });
});

/** The remaining rules, in an OpenAPI 3.1 document written as JSON: how a response is chosen, wildcards, sampling, 304, --validate on path and headers, HTTP Basic, OAuth2 and OpenID Connect. */
const json = (value: unknown) => ({ 'application/json': { example: value } });
const rules = {
  openapi: '3.1.0',
  info: { title: 'rules', version: '1' },
  components: {
    securitySchemes: {
      basic: { type: 'http', scheme: 'basic' },
      oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://example.com/token', scopes: {} } } },
      oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://example.com/.well-known/openid-configuration' },
    },
  },
  paths: {
    '/ranged': {
      get: {
        responses: {
          '5XX': { description: 'e', content: json('failed') },
          '2XX': { description: 'r', content: json('ranged') },
        },
      },
    },
    '/defaulted': {
      get: {
        responses: {
          '404': { description: 'n', content: json('missing') },
          default: { description: 'd', content: json('default') },
        },
      },
    },
    '/lowest': {
      get: {
        responses: {
          '500': { description: 'e', content: json('broken') },
          '404': { description: 'n', content: json('missing') },
        },
      },
    },
    '/unchanged': {
      get: {
        responses: {
          '304': { description: 'not modified', headers: { ETag: { schema: { type: 'string', example: '"v1"' } } } },
        },
      },
    },
    '/wild': {
      get: {
        responses: {
          '200': { description: 'w', content: { ...json({ kind: 'json' }), 'text/plain': { example: 'plain' } } },
        },
      },
    },
    '/sampled': {
      get: {
        responses: {
          '200': {
            description: 's',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['count', 'ok', 'at', 'side', 'tags', 'id'],
                  properties: {
                    count: { type: 'integer', minimum: 3 },
                    ok: { type: 'boolean' },
                    at: { type: 'string', format: 'date' },
                    side: { type: 'string', enum: ['light', 'dark'] },
                    tags: { type: 'array', items: { type: 'string', default: 'tag' } },
                    id: { type: ['string', 'null'], examples: ['first'] },
                  },
                },
              },
            },
          },
        },
      },
    },
    '/items/{id}': {
      get: {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'X-Trace', in: 'header', required: true, schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'i', content: json({ id: 1 }) } },
      },
    },
    '/basic': {
      get: { security: [{ basic: [] }], responses: { '200': { description: 'b', content: json('basic') } } },
    },
    '/oauth': {
      get: { security: [{ oauth: [] }], responses: { '200': { description: 'o', content: json('oauth') } } },
    },
    '/oidc': { get: { security: [{ oidc: [] }], responses: { '200': { description: 'c', content: json('oidc') } } } },
  },
};

describe('restbus-gateway -m --validate on an OpenAPI 3.1 document in JSON, for the rules the pet API does not reach', () => {
  let mock: MockProcess;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${mock.url}${path}`, { headers });
  beforeAll(async () => {
    await writeFile(join(dir.path, 'rules.json'), JSON.stringify(rules, null, 2));
    mock = await startMockProcess(join(dir.path, 'rules.json'), ['--validate']);
  });
  afterAll(() => mock?.child.kill('SIGTERM'));

  it('answers a 2XX range with 200, else default with 200, else the lowest declared code', async () => {
    const answers = [];
    for (const path of ['/ranged', '/defaulted', '/lowest']) {
      const response = await get(path);
      answers.push([response.status, await response.json()]);
    }
    expect(answers).toEqual([
      [200, 'ranged'],
      [200, 'default'],
      [404, 'missing'],
    ]);
  });

  it('answers 304 with its declared headers and no body', async () => {
    const response = await get('/unchanged');
    expect([response.status, response.headers.get('etag'), await response.text()]).toEqual([304, '"v1"', '']);
  });

  it('negotiates a wildcard Accept to the declared type it covers', async () => {
    const text = await get('/wild', { accept: 'text/*' });
    expect([text.headers.get('content-type'), await text.text()]).toEqual(['text/plain; charset=utf-8', 'plain']);
    const any = await get('/wild', { accept: 'image/png, */*;q=0.1' });
    expect([any.headers.get('content-type'), await any.json()]).toEqual([
      'application/json; charset=utf-8',
      { kind: 'json' },
    ]);
  });

  it('builds the same body from a schema every time: minimum, types, formats, enum, default, examples', async () => {
    const first = await (await get('/sampled')).json();
    expect(first).toEqual({
      count: 3,
      ok: true,
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      side: 'light',
      tags: ['tag'],
      id: 'first',
    });
    expect(await (await get('/sampled')).json()).toEqual(first);
  });

  it('answers 400 naming the path parameter or header that does not match, and the example once both do', async () => {
    const badPath = await get('/items/seven', { 'x-trace': 't' });
    const noHeader = await get('/items/7');
    const locations = async (response: Response) =>
      ((await response.json()) as { problems: Array<{ location: string }> }).problems.map((p) => p.location);
    expect([badPath.status, await locations(badPath)]).toEqual([400, ['path.id']]);
    expect([noHeader.status, await locations(noHeader)]).toEqual([400, ['header.x-trace']]);
    const fine = await get('/items/7', { 'x-trace': 't' });
    expect([fine.status, await fine.json()]).toEqual([200, { id: 1 }]);
  });

  it('challenges HTTP Basic, OAuth2 and OpenID Connect with 401 and answers once the credentials are there', async () => {
    const challenges = [];
    for (const path of ['/basic', '/oauth', '/oidc']) {
      const response = await get(path);
      challenges.push([
        response.status,
        response.headers.get('www-authenticate'),
        ((await response.json()) as { code: string }).code,
      ]);
    }
    expect(challenges).toEqual([
      [401, 'Basic realm="restbus"', 'UNAUTHORIZED'],
      [401, 'Bearer realm="restbus"', 'UNAUTHORIZED'],
      [401, 'Bearer realm="restbus"', 'UNAUTHORIZED'],
    ]);
    const basic = await get('/basic', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
    const oauth = await get('/oauth', { authorization: 'Bearer token' });
    const oidc = await get('/oidc', { authorization: 'Bearer token' });
    expect([await basic.json(), await oauth.json(), await oidc.json()]).toEqual(['basic', 'oauth', 'oidc']);
  });
});

describe('restbus-gateway -u -m (hybrid) with a real NATS server', () => {
  let nats: TestNatsServer;
  let gateway: MockProcess;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
    const file = join(dir.path, 'hybrid.yaml');
    await writeFile(file, openapi3('3.0.3'));
    // --mockWrites: the POST below is mocked too (without it a write no service takes is 503 NO_RESPONDER).
    gateway = await startMockProcess(file, ['--validate', '-u', '-n', nats.url, '--timeout', '500', '--mockWrites']);
    // It listens before its NATS link is up; until then every call would be answered by the mock (and it is ready:
    // the mock answers), so wait for the link itself.
    const natsOf = async () => ((await (await fetch(`${gateway.url}/-/ready`)).json()) as { nats?: string }).nats;
    for (let tries = 0; (await natsOf()) !== 'connected'; tries++) {
      if (tries === 100) throw new Error('the gateway did not connect to NATS within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  afterAll(async () => {
    gateway?.child.kill('SIGTERM');
    await nc?.close();
    await nats?.dispose();
  });

  it('forwards what a service answers and mocks, marked and counted, what no service answers', async () => {
    const subscription = nc.subscribe('easer.get_/pets', {
      callback: (_err, msg) => msg.respond(JSON.stringify({ status: 200, body: [{ id: 7, name: 'served' }] })),
    });
    await nc.flush();
    const served = await fetch(`${gateway.url}/pets`);
    expect([served.headers.get('x-restbus-mocked'), await served.json()]).toEqual([null, [{ id: 7, name: 'served' }]]);
    const mocked = await fetch(`${gateway.url}/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-key': 'k' },
      body: '{"name":"Tom"}',
    });
    expect([mocked.status, mocked.headers.get('x-restbus-mocked')]).toEqual([201, 'true']);
    const metrics = await (await fetch(`${gateway.url}/-/metrics`)).text();
    expect(metrics).toMatch(/restbus_gateway_answers_total\{route="\/pets",method="GET",by="service"\} 1\n/);
    expect(metrics).toMatch(/restbus_gateway_answers_total\{route="\/pets",method="POST",by="mock"\} 1\n/);
    subscription.unsubscribe();
  });

  it('never masks a service: its error reply is forwarded and a call it takes but does not answer is 504', async () => {
    const failing = nc.subscribe('easer.get_/pets', {
      callback: (_err, msg) => msg.respond(JSON.stringify({ status: 503, body: { error: 'down for maintenance' } })),
    });
    const silent = nc.subscribe('easer.post_/pets', { callback: () => undefined });
    await nc.flush();
    try {
      const failed = await fetch(`${gateway.url}/pets`);
      expect([failed.status, failed.headers.get('x-restbus-mocked'), await failed.json()]).toEqual([
        503,
        null,
        { error: 'down for maintenance' },
      ]);
      const timedOut = await fetch(`${gateway.url}/pets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-key': 'k' },
        body: '{"name":"Tom"}',
      });
      expect([timedOut.status, timedOut.headers.get('x-restbus-mocked')]).toEqual([504, null]);
      expect(await timedOut.json()).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    } finally {
      failing.unsubscribe();
      silent.unsubscribe();
    }
  });
});
