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
        '200': { description: no example here }
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

describe("the gateway with easer's -m and without -u", () => {
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

  it('answers 501, as without -m, an operation that has no example', async () => {
    expect((await fetch(`${mock.url}/persons/luke`)).status).toBe(501);
  });

  it('answers HEAD with the headers of the example and no body', async () => {
    const response = await fetch(`${mock.url}/persons`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String('[{"id":"luke","familyName":"Skywalker"}]'.length));
    expect(await response.text()).toBe('');
  });
});

describe("the gateway with easer's -m and -u", () => {
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

  it('answers with the example while no service listens, and with the service once one does', async () => {
    const before = await fetch(`${gateway.url}/persons`);
    expect(before.status).toBe(200);
    expect(await before.json()).toEqual([{ id: 'luke', familyName: 'Skywalker' }]);
    const nc = link.current()!;
    const subscription = nc.subscribe('easer.get_/persons', {
      callback: (_err, msg) => msg.respond(JSON.stringify({ status: 200, body: [{ id: 'from the service' }] })),
    });
    await nc.flush();
    try {
      expect(await (await fetch(`${gateway.url}/persons`)).json()).toEqual([{ id: 'from the service' }]);
    } finally {
      subscription.unsubscribe();
    }
  });

  it('still answers 503 NO_RESPONDER for an operation without an example', async () => {
    const response = await fetch(`${gateway.url}/persons/luke`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ code: 'NO_RESPONDER' });
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
