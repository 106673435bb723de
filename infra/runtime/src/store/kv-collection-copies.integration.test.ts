import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { adaptHandler, type Handler } from '../executive/adapt-handler';
import { startResponder, type Responder } from '../nats/start-responder';
import { createRequestMessage, startNatsServer, type TestNatsServer } from '../testing';
import { decodeResponseMessage, encodeMessage } from '../wire/codec';
import { createRequestHeaders } from '../wire/headers';
import type { RequestMessage } from '../wire/types';
import type { Collection } from './collection';
import { openKvCollection } from './kv-collection';

// A gateway sends one call more than once (a resend after its connection was lost, a hedge), every copy with the
// same reply subject. A copy can reach a replica that is cut off from NATS and retries its write once it is back,
// seconds later: after another copy was answered and the client wrote the next value. The cluster fault test saw
// such a copy put the old value back over an acknowledged write. Here the late copy is sent by hand.

const logger = pino({ level: 'silent' });
let server: TestNatsServer;
let nc: NatsConnection;
let items: Collection<{ name: string }>;
let responder: Responder;
let bucket = 0;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});

beforeEach(async () => {
  items = await openKvCollection<{ name: string }>(nc, `copies${bucket++}`);
  const idOf = (data: RequestMessage): string => String(data.request.parameters.uri.id);
  const put: Handler = async (data) => {
    const body = JSON.parse(data.request.body) as { name: string; twice?: string };
    await items.put(idOf(data), { name: body.name });
    // A handler may write one key twice in one call: both writes are its own, the second stays.
    if (body.twice) await items.put(idOf(data), { name: body.twice });
    return { status: 200 };
  };
  const remove: Handler = async (data) => ({ status: (await items.remove(idOf(data))) ? 204 : 404 });
  responder = await startResponder({
    nc,
    logger,
    name: 'copies',
    version: '0.0.1',
    topicPrefix: 'easer',
    routes: [
      { method: 'put', uri: '/items/{id}', handle: adaptHandler(put, 5000, logger) },
      { method: 'delete', uri: '/items/{id}', handle: adaptHandler(remove, 5000, logger) },
    ],
  });
});

afterEach(async () => {
  await responder.stop();
  await items.close();
});

afterAll(async () => {
  await nc?.close();
  await server?.dispose();
});

/** A call, or a copy of one: `reply` is what names the call, as the gateway's mux sends every copy of it. */
async function send(reply: string, method: 'put' | 'delete', id: string, body?: object): Promise<number> {
  const sub = nc.subscribe(reply, { max: 1 });
  const message = createRequestMessage({ method, uri: '/items/{id}', parameters: { query: {}, uri: { id } } });
  if (body) message.request.body = JSON.stringify(body);
  nc.publish(message.topic, encodeMessage(message), { reply, headers: createRequestHeaders() });
  for await (const answer of sub) return decodeResponseMessage(answer.data).status ?? 200;
  throw new Error(`no answer on ${reply}`);
}

const newCall = (): string => `_INBOX.test.${randomUUID()}`;

describe('copies of one call that a store writes', () => {
  it('a late copy of a PUT does not put its value back over the value a later call wrote', async () => {
    const first = newCall();
    expect(await send(first, 'put', 'a', { name: 'first' })).toBe(200);
    expect(await send(newCall(), 'put', 'a', { name: 'second' })).toBe(200);
    // The copy of the first call that a cut-off replica retried: answered as the call was, and changes nothing.
    expect(await send(first, 'put', 'a', { name: 'first' })).toBe(200);
    expect((await items.get('a')).value).toEqual({ name: 'second' });
  });

  it('another call with the same value as an earlier one writes it again', async () => {
    expect(await send(newCall(), 'put', 'b', { name: 'same' })).toBe(200);
    expect(await send(newCall(), 'put', 'b', { name: 'other' })).toBe(200);
    expect(await send(newCall(), 'put', 'b', { name: 'same' })).toBe(200);
    expect((await items.get('b')).value).toEqual({ name: 'same' });
  });

  it('a handler that writes one key twice in one call keeps its second write', async () => {
    expect(await send(newCall(), 'put', 'c', { name: 'draft', twice: 'final' })).toBe(200);
    expect((await items.get('c')).value).toEqual({ name: 'final' });
  });

  it('a late copy of a DELETE does not delete the record a later call wrote again', async () => {
    expect(await send(newCall(), 'put', 'd', { name: 'old' })).toBe(200);
    const removal = newCall();
    expect(await send(removal, 'delete', 'd')).toBe(204);
    expect(await send(newCall(), 'put', 'd', { name: 'new' })).toBe(200);
    await send(removal, 'delete', 'd');
    expect((await items.get('d')).value).toEqual({ name: 'new' });
  });
});
