import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createNatsLink, type NatsLink } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startTestGateway, type TestGateway } from '../__tests__/start-test-gateway';
import type { ApiEndpoint } from '../openapi/endpoint';
import { loadApi } from '../openapi/load-api';

const BIG = 'restbus '.repeat(500);
const API = `
openapi: 3.0.3
info: { title: examples, version: '1.0' }
paths:
  /persons:
    get:
      responses:
        '200':
          description: the persons
          content:
            application/json:
              example: [{ id: luke, familyName: Skywalker }]
            text/csv:
              examples:
                first: { value: "id,familyName\\nluke,Skywalker\\n" }
    post:
      responses:
        '201':
          description: created
          content:
            application/json:
              example: { id: han }
        '400': { description: bad }
  /big:
    get:
      responses:
        '200':
          description: a large text
          content:
            text/plain:
              example: ${BIG}
  /persons/{id}:
    get:
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses:
        '200':
          description: built from the schema
          headers:
            X-Rate-Limit: { schema: { type: integer, example: 100 } }
            X-Trace: { schema: { type: string, enum: [abc, def] } }
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Person' }
        4XX:
          description: not found
          content:
            application/json:
              examples:
                missing: { value: { error: no such person } }
                gone: { value: { error: deleted } }
    delete:
      responses:
        '204': { description: deleted }
        default: { description: an error, content: { application/json: { example: { error: failed } } } }
  /ranges:
    get:
      responses:
        2XX: { description: a range, content: { application/json: { example: ranged } } }
        default: { description: other }
  /defaults:
    get:
      responses:
        default: { description: anything, content: { application/json: { schema: { type: boolean } } } }
  /empty:
    get:
      responses:
        '200': { description: no content }
components:
  schemas:
    Person:
      type: object
      required: [id, familyName]
      properties:
        id: { type: string, example: luke }
        familyName: { type: string, default: Skywalker }
        born: { type: string, format: date }
        height: { type: integer, minimum: 100 }
        side: { type: string, enum: [light, dark] }
        friends: { type: array, items: { $ref: '#/components/schemas/Person' } }
`;

let dir: string;
let endpoints: ApiEndpoint[];
let mock: TestGateway;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-mock-'));
  await writeFile(join(dir, 'api.yml'), API);
  endpoints = await loadApi(join(dir, 'api.yml'));
  mock = await startTestGateway(endpoints, { mock: true });
});
afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the gateway with -m and without -u, answering as the API description says', () => {
  it('answers with the example of the 200 response, in the first media type when the client accepts any', async () => {
    const response = await fetch(`${mock.url}/persons`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual([{ id: 'luke', familyName: 'Skywalker' }]);
  });

  it('answers in the media type the Accept header prefers, weighing q-values', async () => {
    const response = await fetch(`${mock.url}/persons`, {
      headers: { accept: 'application/json;q=0.5, text/csv' },
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await response.text()).toBe('id,familyName\nluke,Skywalker\n');
  });

  it('answers 406 NOT_ACCEPTABLE in JSON when no example is in a type the client accepts', async () => {
    const response = await fetch(`${mock.url}/persons`, { headers: { accept: 'application/xml' } });
    expect(response.status).toBe(406);
    expect(await response.json()).toMatchObject({ code: 'NOT_ACCEPTABLE' });
  });

  it('answers an operation without a 200 with its lowest 2xx example and status', async () => {
    const response = await fetch(`${mock.url}/persons`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ id: 'han' });
  });

  it('builds a body from the schema when there is no example: example, default, enum, format, the same every time', async () => {
    const first = await fetch(`${mock.url}/persons/luke`);
    expect(first.status).toBe(200);
    const body = (await first.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ id: 'luke', familyName: 'Skywalker', side: 'light', height: 100 });
    expect(body.born).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await (await fetch(`${mock.url}/persons/luke`)).json()).toEqual(body);
  });

  it('sends the declared response headers with their examples, or values built from their schemas', async () => {
    const response = await fetch(`${mock.url}/persons/luke`);
    expect(response.headers.get('x-rate-limit')).toBe('100');
    expect(response.headers.get('x-trace')).toBe('abc');
  });

  it('answers the response Prefer: code= names, through its range, with the first of its examples or the one Prefer: example= names', async () => {
    const first = await fetch(`${mock.url}/persons/luke`, { headers: { prefer: 'code=404' } });
    expect(first.status).toBe(404);
    expect(await first.json()).toEqual({ error: 'no such person' });
    const named = await fetch(`${mock.url}/persons/luke`, { headers: { prefer: 'code=410, example=gone' } });
    expect(named.status).toBe(410);
    expect(await named.json()).toEqual({ error: 'deleted' });
  });

  it('answers 400 BAD_REQUEST, naming what there is, when Prefer asks for a response or example the operation does not have', async () => {
    const code = await fetch(`${mock.url}/persons`, { headers: { prefer: 'code=500' } });
    expect(code.status).toBe(400);
    expect(await code.json()).toEqual({
      error: 'Prefer: code=500: the operation declares no such response (it declares 200)',
      code: 'BAD_REQUEST',
    });
    const example = await fetch(`${mock.url}/persons/luke`, { headers: { prefer: 'code=404, example=lost' } });
    expect(example.status).toBe(400);
    expect(((await example.json()) as { error: string }).error).toMatch(/no such example \(it has missing, gone\)/);
  });

  it('answers a 2XX range with 200, default when nothing else is declared, and 204 without a body', async () => {
    const ranged = await fetch(`${mock.url}/ranges`);
    expect([ranged.status, await ranged.json()]).toEqual([200, 'ranged']);
    const defaulted = await fetch(`${mock.url}/defaults`);
    expect([defaulted.status, await defaulted.json()]).toEqual([200, true]);
    const deleted = await fetch(`${mock.url}/persons/luke`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get('content-type')).toBeNull();
    expect(await deleted.text()).toBe('');
  });

  it('answers a response without content with its status and no body', async () => {
    const response = await fetch(`${mock.url}/empty`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('0');
  });

  it('answers HEAD with the headers of the example and no body', async () => {
    const response = await fetch(`${mock.url}/persons`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String('[{"id":"luke","familyName":"Skywalker"}]'.length));
    expect(await response.text()).toBe('');
  });
});

describe('the gateway with -m, reloaded', () => {
  it('answers with the reloaded description at once, not with the answers it kept from the old one', async () => {
    const file = join(dir, 'reloaded.yml');
    const describe = (name: string) =>
      `openapi: 3.0.3
info: { title: reloaded, version: '1' }
paths:
  /persons:
    get:
      responses:
        '200': { description: the persons, content: { application/json: { example: [{ id: ${name} }] } } }
`;
    await writeFile(file, describe('luke'));
    const reloaded = await startTestGateway(await loadApi(file), { mock: true });
    try {
      expect(await (await fetch(`${reloaded.url}/persons`)).json()).toEqual([{ id: 'luke' }]);
      await writeFile(file, describe('leia'));
      reloaded.gateway.setEndpoints(await loadApi(file));
      expect(await (await fetch(`${reloaded.url}/persons`)).json()).toEqual([{ id: 'leia' }]);
    } finally {
      await reloaded.close();
    }
  });
});

describe('the gateway with -m and -u (hybrid)', () => {
  let server: TestNatsServer;
  let link: NatsLink;
  let gateway: TestGateway;

  beforeAll(async () => {
    server = await startNatsServer();
    link = createNatsLink({ servers: server.url, name: 'mock-test', logger: pino({ level: 'silent' }) });
    await link.ready();
    gateway = await startTestGateway(endpoints, { link, mock: true, timeoutMs: 300 });
  });
  afterAll(async () => {
    await gateway?.close();
    await link?.drain();
    await server?.dispose();
  });

  it('answers from the mock, saying so, while no service listens, and with the service once one does', async () => {
    const before = await fetch(`${gateway.url}/persons`);
    expect(before.status).toBe(200);
    expect(before.headers.get('x-restbus-mocked')).toBe('true');
    expect(await before.json()).toEqual([{ id: 'luke', familyName: 'Skywalker' }]);
    const nc = link.current()!;
    const subscription = nc.subscribe('easer.get_/persons', {
      callback: (_err, msg) => msg.respond(JSON.stringify({ status: 200, body: [{ id: 'from the service' }] })),
    });
    await nc.flush();
    try {
      const served = await fetch(`${gateway.url}/persons`);
      expect(served.headers.get('x-restbus-mocked')).toBeNull();
      expect(await served.json()).toEqual([{ id: 'from the service' }]);
      const metrics = await (await fetch(`${gateway.url}/-/metrics`)).text();
      expect(metrics).toMatch(/restbus_gateway_answers_total\{route="\/persons",method="GET",by="mock"\} 1\n/);
      expect(metrics).toMatch(/restbus_gateway_answers_total\{route="\/persons",method="GET",by="service"\} 1\n/);
    } finally {
      subscription.unsubscribe();
    }
  });

  it('never masks a service that takes the call and does not answer in time: 504, not the mock', async () => {
    const nc = link.current()!;
    const subscription = nc.subscribe('easer.post_/persons', { callback: () => undefined });
    await nc.flush();
    try {
      const response = await fetch(`${gateway.url}/persons`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(504);
      expect(response.headers.get('x-restbus-mocked')).toBeNull();
      expect(await response.json()).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    } finally {
      subscription.unsubscribe();
      await nc.flush();
    }
  });
});

describe("the gateway with easer's -s", () => {
  it('compresses a response body the client accepts gzipped, above 1 KB as easer did', async () => {
    const gateway = await startTestGateway(endpoints, { mock: true, compress: true });
    try {
      // fetch decompresses by itself and keeps the header it got.
      const big = await fetch(`${gateway.url}/big`, { headers: { 'accept-encoding': 'gzip' } });
      expect(big.headers.get('content-encoding')).toBe('gzip');
      expect(await big.text()).toBe(BIG.trim());
      const small = await fetch(`${gateway.url}/persons`, { headers: { 'accept-encoding': 'gzip' } });
      expect(small.headers.get('content-encoding')).toBeNull();
      const refused = await fetch(`${gateway.url}/big`, { headers: { 'accept-encoding': 'identity' } });
      expect(refused.headers.get('content-encoding')).toBeNull();
      expect(await refused.text()).toBe(BIG.trim());
    } finally {
      await gateway.close();
    }
  });
});

describe('the gateway with -m on a Swagger 2.0 document in JSON', () => {
  const swagger = {
    swagger: '2.0',
    info: { title: 'two', version: '1' },
    produces: ['application/json', 'application/xml'],
    paths: {
      '/items': {
        get: {
          responses: {
            '200': {
              description: 'items',
              schema: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer', default: 7 } } } },
              headers: { 'X-Total': { type: 'integer', default: 1 }, 'X-Page': { type: 'string', 'x-example': 'p1' } },
              examples: { 'application/xml': '<items><n>7</n></items>' },
            },
          },
        },
      },
    },
  };
  let gateway: TestGateway;
  beforeAll(async () => {
    await writeFile(join(dir, 'swagger.json'), JSON.stringify(swagger));
    gateway = await startTestGateway(await loadApi(join(dir, 'swagger.json')), { mock: true });
  });
  afterAll(() => gateway?.close());

  it('builds the JSON body from the schema, takes the XML one from examples, and sends the declared headers', async () => {
    const json = await fetch(`${gateway.url}/items`);
    expect(await json.json()).toEqual([{ n: 7 }]);
    expect([json.headers.get('x-total'), json.headers.get('x-page')]).toEqual(['1', 'p1']);
    const xml = await fetch(`${gateway.url}/items`, { headers: { accept: 'application/xml' } });
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(await xml.text()).toBe('<items><n>7</n></items>');
  });
});

describe('the gateway with -m: security and --validate', () => {
  const SECURED = `
openapi: 3.1.0
info: { title: secured, version: '1' }
security: [{ key: [] }]
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-Api-Key }
    token: { type: http, scheme: bearer }
    basic: { type: http, scheme: basic }
    session: { type: apiKey, in: cookie, name: sid }
paths:
  /open:
    get:
      security: [{}]
      responses: { '200': { description: ok, content: { application/json: { example: open } } } }
  /keyed:
    get:
      parameters: [{ name: limit, in: query, schema: { type: integer, maximum: 10 } }]
      responses: { '200': { description: ok, content: { application/json: { example: keyed } } } }
  /either:
    post:
      security: [{ token: [] }, { basic: [], session: [] }]
      requestBody:
        required: true
        content:
          application/json:
            schema: { type: object, required: [name], properties: { name: { type: string } } }
      responses: { '201': { description: made, content: { application/json: { example: made } } } }
`;
  let gateway: TestGateway;
  beforeAll(async () => {
    await writeFile(join(dir, 'secured.yml'), SECURED);
    gateway = await startTestGateway(await loadApi(join(dir, 'secured.yml')), { mock: true, validate: true });
  });
  afterAll(() => gateway?.close());

  it('answers 401 with WWW-Authenticate when no security requirement is met, and the mock once one is', async () => {
    const refused = await fetch(`${gateway.url}/keyed`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('ApiKey in="header", name="X-Api-Key"');
    expect(await refused.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    const let_in = await fetch(`${gateway.url}/keyed`, { headers: { 'x-api-key': 'anything' } });
    expect([let_in.status, await let_in.json()]).toEqual([200, 'keyed']);
    expect((await fetch(`${gateway.url}/open`)).status).toBe(200);
  });

  it('lets a call in when every scheme of any one requirement is there, and challenges with all of them otherwise', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${gateway.url}/either`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{"name":"x"}',
      });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(
      'Bearer realm="restbus", Basic realm="restbus", ApiKey in="cookie", name="sid"',
    );
    expect((await post({ authorization: 'Basic dTpw' })).status).toBe(401);
    expect((await post({ authorization: 'Basic dTpw', cookie: 'a=1; sid=s' })).status).toBe(201);
    expect((await post({ authorization: 'Bearer t' })).status).toBe(201);
  });

  it('asks for credentials before it looks at the request: 401, not 400, for an invalid body without them', async () => {
    const response = await fetch(`${gateway.url}/either`, { method: 'POST', body: '{"name":7}' });
    expect(response.status).toBe(401);
  });

  it('answers 400 when the body is invalid and when the query is, with every problem, as the services do', async () => {
    const body = await fetch(`${gateway.url}/either`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"name":7}',
    });
    expect(body.status).toBe(400);
    expect(await body.json()).toMatchObject({
      code: 'REQUEST_INVALID',
      problems: [{ location: expect.stringMatching(/^body/) }],
    });
    const query = await fetch(`${gateway.url}/keyed?limit=11`, { headers: { 'x-api-key': 'k' } });
    expect(query.status).toBe(400);
    expect(await query.json()).toMatchObject({ code: 'REQUEST_INVALID', problems: [{ location: 'query.limit' }] });
  });
});
