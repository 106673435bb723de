import { connect, type NatsConnection } from 'nats';
import { createLogger } from '../logging/create-logger';
import { startNatsServer, type TestNatsServer } from '../testing/nats-server';
import { createRequestHeaders } from '../wire/headers';
import { BODY_APART, REPLY_FORM_HEADER, decodeReplyApart } from '../wire/reply-apart';
import type { RequestMessage } from '../wire/types';
import type { Contract, ContractOperation } from './contract';
import { createContractClient } from './create-contract-client';
import { startContractService, type ContractService } from './start-contract-service';

const operation = (name: string, responses: ContractOperation['responses']): ContractOperation => ({
  name,
  method: 'get',
  path: `/${name}`,
  parameters: { path: [], query: [], header: [] },
  responses,
});

const contract: Contract = {
  title: 'types',
  version: '1.0',
  dialect: '3.0',
  operations: [
    operation('getGreeting', { '200': ['text/plain'] }),
    operation('getProblem', { '200': ['application/json'], '4XX': ['application/problem+json'] }),
    operation('getChoice', { '200': ['application/json', 'text/csv'] }),
    operation('getOwnType', { '200': ['text/plain'] }),
    operation('getJsonString', { default: ['application/json'] }),
  ],
};

describe('a contract reply without a content-type, through a real nats-server', () => {
  let server: TestNatsServer;
  let nc: NatsConnection;
  let service: ContractService;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    service = await startContractService({
      nc,
      logger: createLogger({ name: 'test', level: 'silent' }),
      name: 'types',
      version: '1.0.0',
      topicPrefix: 'easer',
      contract,
      handlers: {
        getGreeting: () => ({ status: 200, body: 'hello, world' }),
        getProblem: () => ({ status: 404, body: { title: 'no such thing', status: 404 } }),
        getChoice: () => ({ status: 200, body: { a: 1 } }),
        getOwnType: () => ({ status: 200, headers: { 'Content-Type': 'text/markdown' }, body: '# hello' }),
        getJsonString: () => ({ status: 200, body: 'quoted' }),
      },
    });
  });
  afterAll(async () => {
    await service?.stop();
    await nc?.close();
    await server?.dispose();
  });

  /** The reply as the gateway asks for it: head and body apart, the body's bytes as the service sent them. */
  async function callApart(name: string): Promise<{ status?: number; headers: object; text: string }> {
    const message: RequestMessage = {
      topic: `easer.get_/${name}`,
      method: 'get',
      uri: `/${name}`,
      endpointDesc: {
        uri: `/${name}`,
        jsfUri: `/${name}`,
        method: 'get',
        operationId: null,
        consumes: [],
        produces: [],
        responses: {},
      },
      request: { cookies: {}, headers: {}, parameters: { query: {}, uri: {} }, body: '' },
    };
    const headers = createRequestHeaders();
    headers.set(REPLY_FORM_HEADER, BODY_APART);
    const msg = await nc.request(message.topic, JSON.stringify(message), { timeout: 5000, headers });
    const reply = decodeReplyApart(msg.headers, msg.data)!;
    return { status: reply.status, headers: reply.headers ?? {}, text: new TextDecoder().decode(msg.data) };
  }

  it('is sent with the one media type its status declares, and a text/plain string arrives as that text', async () => {
    const client = createContractClient({ nc, topicPrefix: 'easer', contract });
    expect(await client.getGreeting()).toEqual({
      status: 200,
      headers: { 'content-type': 'text/plain' },
      body: 'hello, world',
    });
    expect(await callApart('getGreeting')).toEqual({
      status: 200,
      headers: { 'content-type': 'text/plain' },
      text: 'hello, world',
    });
  });

  it('is sent as application/problem+json when the status falls under a declared 4XX of that type', async () => {
    const client = createContractClient({ nc, topicPrefix: 'easer', contract });
    expect(await client.getProblem()).toEqual({
      status: 404,
      headers: { 'content-type': 'application/problem+json' },
      body: { title: 'no such thing', status: 404 },
    });
  });

  it('keeps the content-type a handler set, and sets none when the status declares several', async () => {
    expect(await callApart('getOwnType')).toEqual({
      status: 200,
      headers: { 'Content-Type': 'text/markdown' },
      text: '# hello',
    });
    const client = createContractClient({ nc, topicPrefix: 'easer', contract });
    expect(await client.getChoice()).toEqual({ status: 200, body: { a: 1 } });
  });

  it('sends a string under a declared JSON type as JSON text', async () => {
    expect(await callApart('getJsonString')).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json' },
      text: '"quoted"',
    });
  });
});
