import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { createExecutive, type Executive } from '../executive/create-executive';
import { startNatsServer, type TestNatsServer } from '../testing';
import type { Contract } from './contract';
import { createContractClient } from './create-contract-client';
import { serveContract } from './serve-contract';

const contract: Contract = {
  title: 'things',
  version: '1.0',
  dialect: '3.0',
  operations: [
    {
      name: 'listThings',
      operationId: 'listThings',
      method: 'get',
      path: '/things',
      parameters: { path: [], query: [{ name: 'limit', required: false, schema: { type: 'integer' } }], header: [] },
    },
    {
      name: 'deleteThingsById',
      method: 'delete',
      path: '/things/{id}',
      parameters: { path: [{ name: 'id', required: true, schema: { type: 'string' } }], query: [], header: [] },
    },
  ],
};

let server: TestNatsServer;
let nc: NatsConnection;
let executive: Executive<object>;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  executive = createExecutive({
    name: 'thing-service',
    version: '1.2.3',
    description: 'things',
    startups: [
      serveContract({
        contract,
        createHandlers: () => ({
          listThings: ({ query }: { query: { limit?: number } }) => ({ status: 200, body: { limit: query.limit } }),
          deleteThingsById: () => ({ status: 204 }),
        }),
      }),
    ],
    argv: ['-n', server.url, '--handlerTimeout', '500'],
    env: {},
    logger: pino({ level: 'silent' }),
  });
  await executive.start();
});
afterAll(async () => {
  await executive?.stop();
  await nc?.close();
  await server?.dispose();
});

describe('a contract served on the executive', () => {
  it('shows up in $SRV.INFO as one service, with one endpoint per operation and its operationId, method and path', async () => {
    const infos = [];
    for await (const info of await nc.services.client().info()) infos.push(info);
    expect(infos.map(({ name, version, endpoints }) => ({ name, version, endpoints }))).toEqual([
      {
        name: 'thing-service',
        version: '1.2.3',
        endpoints: [
          expect.objectContaining({
            name: 'listThings',
            subject: 'easer.get_/things',
            metadata: { name: 'listThings', operationId: 'listThings', method: 'GET', path: '/things' },
          }),
          expect.objectContaining({
            name: 'deleteThingsById',
            subject: 'easer.delete_/things/{id}',
            metadata: { name: 'deleteThingsById', method: 'DELETE', path: '/things/{id}' },
          }),
        ],
      },
    ]);
  });

  it('answers each operation through that one service, its input checked and coerced', async () => {
    const client = createContractClient({ nc, topicPrefix: 'easer', contract });
    expect(await client.listThings({ query: { limit: '3' } })).toEqual({ status: 200, body: { limit: 3 } });
    expect(await client.listThings({ query: { limit: 'many' } })).toMatchObject({
      status: 400,
      body: { code: 'REQUEST_INVALID', problems: [{ location: 'query.limit', message: 'must be integer' }] },
    });
    expect(await client.deleteThingsById({ params: { id: 'x' } })).toEqual({ status: 204 });
    const stats = (await nc.request('$SRV.STATS.thing-service', undefined, { timeout: 1000 })).json<{
      endpoints: Array<{ name: string; num_requests: number; num_errors: number }>;
    }>();
    expect(stats.endpoints.map(({ name, num_requests }) => [name, num_requests])).toEqual([
      ['listThings', 2],
      ['deleteThingsById', 1],
    ]);
  });
});
