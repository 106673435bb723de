import { connect, type NatsConnection } from 'nats';
import { createLogger } from '../logging/create-logger';
import { createRequestMessage } from '../testing/create-request-message';
import { startNatsServer, type TestNatsServer } from '../testing/nats-server';
import { encodeMessage } from '../wire/codec';
import { DEADLINE_HEADER, createRequestHeaders } from '../wire/headers';
import type { Contract } from './contract';
import { createContractClient } from './create-contract-client';
import type { OperationHandler } from './operation-types';
import { startContractService, type ContractService } from './start-contract-service';

const contract: Contract = {
  title: 'things',
  version: '1.0',
  dialect: '3.1',
  operations: [
    {
      name: 'getThing',
      operationId: 'getThing',
      method: 'get',
      path: '/things/{id}',
      subjectOverride: 'things.read',
      parameters: {
        path: [{ name: 'id', required: true, schema: { type: 'integer' } }],
        query: [],
        header: [{ name: 'X-Tenant', required: true, schema: { type: 'string', minLength: 2 } }],
      },
    },
    {
      name: 'postThings',
      method: 'post',
      path: '/things',
      parameters: { path: [], query: [], header: [] },
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { $ref: 'restbus-api.json#/components/schemas/Node' } },
        },
      },
    },
  ],
  // A cyclic schema, as the generator writes it: the $ref points into the schema root.
  schemaRoot: {
    components: {
      schemas: {
        Node: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: ['string', 'null'] },
            children: { type: 'array', items: { $ref: 'restbus-api.json#/components/schemas/Node' } },
          },
        },
      },
    },
  },
};

describe('startContractService', () => {
  let server: TestNatsServer;
  let nc: NatsConnection;
  let service: ContractService;
  const seen: unknown[] = [];

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    service = await startContractService({
      nc,
      logger: createLogger({ name: 'test', level: 'silent' }),
      name: 'things',
      version: '1.0.0',
      topicPrefix: 'easer',
      contract,
      handlers: {
        getThing: (input: { params: unknown; headers: unknown }) => {
          seen.push(input.params, input.headers);
          return { status: 200, body: { ok: true } };
        },
        postThings: () => {
          throw new Error('the store is gone');
        },
      },
    });
  });
  afterAll(async () => {
    await service?.stop();
    await nc?.close();
    await server?.dispose();
  });

  it("binds an operation to its x-restbus-subject and the others to the gateway's <prefix>.<method>_<path>", () => {
    expect(service.subjects).toEqual(['things.read', 'easer.post_/things']);
  });

  it('names each endpoint after its operation, with operationId (when the document gives one), method and path', async () => {
    const infos = [];
    for await (const info of await nc.services.client().info('things')) infos.push(info);
    expect(infos.map((info) => info.endpoints)).toEqual([
      [
        expect.objectContaining({
          name: 'getThing',
          subject: 'things.read',
          metadata: { name: 'getThing', operationId: 'getThing', method: 'GET', path: '/things/{id}' },
        }),
        expect.objectContaining({
          name: 'postThings',
          subject: 'easer.post_/things',
          metadata: { name: 'postThings', method: 'POST', path: '/things' },
        }),
      ],
    ]);
  });

  it('hands the handler parameters coerced to their schema types, headers by their declared names', async () => {
    const client = createContractClient({ nc, topicPrefix: 'easer', contract });
    const reply = await client.getThing({ params: { id: 7 }, headers: { 'X-Tenant': 'acme' } });
    expect(reply).toEqual({ status: 200, body: { ok: true } });
    expect(seen).toEqual([{ id: 7 }, { 'X-Tenant': 'acme' }]);
  });

  it('checks a body against a cyclic schema (2020-12 type arrays included) and lists every problem', async () => {
    const client = createContractClient({ nc, topicPrefix: 'easer', contract });
    const reply = await client.postThings({ body: { name: 3, children: [{ name: null }, { children: [] }] } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      error: 'the request does not match the API description',
      code: 'REQUEST_INVALID',
      problems: [
        { location: 'body/name', message: 'must be string,null' },
        { location: 'body/children/1', message: "must have required property 'name'" },
      ],
    });
  });

  it('refuses a missing body, bad parameters and JSON sent as text together, before the handler runs', async () => {
    const client = createContractClient({ nc, topicPrefix: 'easer', contract });
    expect((await client.getThing({ params: { id: 'seven' } })).body).toMatchObject({
      code: 'REQUEST_INVALID',
      problems: [
        { location: 'path.id', message: 'must be integer' },
        { location: 'header.x-tenant', message: 'is required' },
      ],
    });
    expect((await client.postThings({})).body).toMatchObject({
      problems: [{ location: 'body', message: 'is required' }],
    });
    const asText = await client.postThings({ body: '{}', headers: { 'content-type': 'text/plain' } });
    expect(asText.body).toMatchObject({ problems: [{ location: 'body', message: 'must be JSON' }] });
  });

  it('answers 500 HANDLER_FAILED when a handler throws, without its message', async () => {
    const client = createContractClient({ nc, topicPrefix: 'easer', contract });
    const reply = await client.postThings({ body: { name: 'root' } });
    expect(reply).toMatchObject({
      status: 500,
      body: { code: 'HANDLER_FAILED', error: 'the service failed to handle the request' },
    });
  });

  it('answers by the deadline the request carries (Restbus-Deadline-Ms), not its own longer handler timeout', async () => {
    const slow = await startContractService({
      nc,
      logger: createLogger({ name: 'test', level: 'silent' }),
      name: 'slow-things',
      version: '1.0.0',
      topicPrefix: 'slow',
      handlerTimeout: 10_000,
      contract: {
        ...contract,
        operations: [
          { name: 'getSlow', method: 'get', path: '/slow', parameters: { path: [], query: [], header: [] } },
        ],
      },
      handlers: { getSlow: () => new Promise(() => undefined) },
    });
    try {
      const headers = createRequestHeaders();
      headers.set(DEADLINE_HEADER, '600');
      // Not at once: a timer of a third of the carried deadline, set first in this very process, fires before the
      // service's own. And not at its handler timeout: the call gives up at half of that.
      let aThirdPassed = false;
      const third = setTimeout(() => (aThirdPassed = true), 200);
      const request = createRequestMessage({ uri: '/slow', method: 'get' });
      try {
        const msg = await nc.request('slow.get_/slow', encodeMessage(request), { timeout: 5000, headers });
        expect(msg.json()).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
        expect(aThirdPassed).toBe(true);
      } finally {
        clearTimeout(third);
      }
    } finally {
      await slow.stop();
    }
  });

  it('refuses to start when an operation has no handler', async () => {
    await expect(
      startContractService({
        nc,
        logger: createLogger({ name: 'test', level: 'silent' }),
        name: 'things',
        version: '1.0.0',
        topicPrefix: 'easer',
        contract,
        handlers: { getThing: () => ({ status: 200 }) },
      }),
    ).rejects.toThrow('no handler for postThings');
  });
});

// Type-level: what a handler may answer for an operation typed as openapi-typescript writes it.
type GetThing = {
  parameters: { path: { id: number }; query?: never; header?: never };
  requestBody?: never;
  responses: {
    200: {
      headers: { 'X-Version': string; [name: string]: unknown };
      content: { 'application/json': { ok: boolean } };
    };
    '4XX': { headers: { [name: string]: unknown }; content: { 'application/json': { error: string } } };
    default: { headers: { [name: string]: unknown }; content?: never };
  };
};
export const answersItsDeclaredReplies: OperationHandler<GetThing> = ({ params }) =>
  params.id > 0
    ? { status: 200, headers: { 'X-Version': String(params.id) }, body: { ok: true } }
    : { status: 404, body: { error: 'no' } };
export const answersDefaultWithoutBody: OperationHandler<GetThing> = () => ({ status: 503 });
// @ts-expect-error a header the response requires is missing
export const missesARequiredHeader: OperationHandler<GetThing> = () => ({ status: 200, body: { ok: true } });
// @ts-expect-error a 4XX answers the 4XX body
export const answersTheWrongBody: OperationHandler<GetThing> = () => ({ status: 404, body: { ok: false } });

// An event stream's opening reply: its body, the snapshot sent as the first event, may be left out (issue 47).
type WatchThings = {
  parameters: { path?: never; query?: never; header?: never };
  requestBody?: never;
  responses: {
    200: { headers: { [name: string]: unknown }; content: { 'text/event-stream': { id: number } } };
    500: { headers: { [name: string]: unknown }; content: { 'application/json': { error: string } } };
  };
};
export const opensAStreamWithNoSnapshot: OperationHandler<WatchThings> = () => ({ status: 200 });
export const opensAStreamWithASnapshot: OperationHandler<WatchThings> = () => ({ status: 200, body: { id: 1 } });
// @ts-expect-error an ordinary reply still has the body its response declares
export const failsWithNoBody: OperationHandler<WatchThings> = () => ({ status: 500 });
