import { connect, JSONCodec, type NatsConnection } from 'nats';
import { startNatsServer, waitFor, type TestNatsServer } from '../testing';
import type { Collection } from './collection';
import { openKvCollection } from './kv-collection';

interface Item {
  name: string;
}

let server: TestNatsServer;
let own: NatsConnection;
let other: NatsConnection;
let bucket = 0;

beforeAll(async () => {
  server = await startNatsServer();
  own = await connect({ servers: server.url });
  other = await connect({ servers: server.url });
});
afterAll(async () => {
  await own?.close();
  await other?.close();
  await server?.dispose();
});

type Reads = Pick<Collection<Item>, 'get' | 'list'>;

/**
 * Two replicas of one service, each on its own connection with its own copy of the bucket. The reader's reads
 * come over the bus from the writer's connection, as a client's next call reaches a service: after the writer's
 * answer, so after its announcement.
 */
async function openReplicas(): Promise<{ name: string; reader: Reads; writer: Collection<Item> }> {
  const name = `announced${bucket++}`;
  const replica = await openKvCollection<Item>(own, name, { reads: 'announced' });
  const writer = await openKvCollection<Item>(other, name, { reads: 'announced' });
  own.subscribe(`read.${name}`, {
    callback: (_err, msg) => {
      const { id } = msg.json<{ id?: string }>();
      void (id === undefined ? replica.list({ limit: 1000 }) : replica.get(id)).then((result) =>
        msg.respond(JSON.stringify(result)),
      );
    },
  });
  await own.flush();
  const read = async <R>(id?: string): Promise<R> =>
    (await other.request(`read.${name}`, JSON.stringify({ id }), { timeout: 5000 })).json<R>();
  const reader: Reads = {
    get: (id) => read(id),
    list: () => read(),
  };
  return { name, reader, writer };
}

/** Deletes the consumers that feed the replicas' copies: they stop following until they notice. */
async function stallCopies(name: string): Promise<void> {
  const jsm = await other.jetstreamManager();
  const consumers = await jsm.consumers.list(`KV_${name}`).next();
  expect(consumers.length).toBeGreaterThan(0);
  for (const consumer of consumers) await jsm.consumers.delete(`KV_${name}`, consumer.name);
}

/** Counts the STREAM.INFO requests that reach the server for the bucket's stream from now on. */
async function countStreamInfo(name: string): Promise<() => Promise<number>> {
  let count = 0;
  const spy = other.subscribe(`$JS.API.STREAM.INFO.KV_${name}`, { callback: () => count++ });
  await other.flush();
  return async () => {
    // The server sends the spy its copies before it answers the flush's PING.
    await other.flush();
    spy.unsubscribe();
    return count;
  };
}

describe('a JetStream KV collection whose reads wait for announced writes', () => {
  it('answers a read on one replica with the write another replica had acknowledged just before, every time', async () => {
    const { reader, writer } = await openReplicas();
    for (let i = 0; i < 50; i++) {
      await writer.put(`p${i}`, { name: `n${i}` });
      expect(await reader.get(`p${i}`)).toEqual({ value: { name: `n${i}` }, stale: false });
      expect((await reader.list()).items).toHaveLength(i + 1);
    }
  });

  it('asks the stream once in a while, not once per read, while writes and reads go on', async () => {
    const { name, reader, writer } = await openReplicas();
    await reader.list();
    const stop = await countStreamInfo(name);
    const reads = 50;
    for (let i = 0; i < reads; i++) {
      await writer.put(`p${i}`, { name: `n${i}` });
      const page = await reader.list();
      expect(page.items).toHaveLength(i + 1);
    }
    // A confirmation stands for a second (read-horizon.integration.test.ts holds the clock for that): the reads
    // ask once per second they take. Fifty of them take a fraction of one; a machine would have to be 40 times
    // slower than a quiet one for a fifth of them to ask, while one per read asks fifty times.
    expect(await stop()).toBeLessThan(reads / 5);
  });

  it('asks the stream for every read when its reads are confirmed', async () => {
    const name = `confirmed${bucket++}`;
    const reader = await openKvCollection<Item>(own, name);
    await reader.list();
    const stop = await countStreamInfo(name);
    for (let i = 0; i < 20; i++) await reader.list();
    expect(await stop()).toBeGreaterThanOrEqual(20);
  });

  it('waits for the write another replica announced even when its copy stopped following', async () => {
    const { name, reader, writer } = await openReplicas();
    await reader.list();
    await stallCopies(name);
    await writer.put('late', { name: 'late' });
    expect(await reader.get('late')).toEqual({ value: { name: 'late' }, stale: false });
  });

  it('no longer shows a value another replica removed, even from a copy that stopped following', async () => {
    const { name, reader, writer } = await openReplicas();
    await writer.put('a', { name: 'A' });
    await writer.put('b', { name: 'B' });
    expect(await reader.get('a')).toEqual({ value: { name: 'A' }, stale: false });
    await stallCopies(name);
    expect(await writer.remove('a')).toBe(true);
    expect(await reader.get('a')).toEqual({ value: undefined, stale: false });
    expect((await reader.list()).items).toEqual([{ name: 'B' }]);
  });

  it('shows a write no replica announced (another program made it) once its last confirmation lapses, even from a copy that stopped following', async () => {
    const { name, reader } = await openReplicas();
    await reader.list();
    await stallCopies(name);
    const kv = await own.jetstream().views.kv(name);
    await kv.put(Buffer.from('stranger').toString('base64url'), JSONCodec().encode({ value: { name: 'S' } }));
    // A second after the last confirmation (read-horizon.integration.test.ts holds the clock for that).
    await waitFor(async () => (await reader.get('stranger')).value !== undefined, {
      what: 'the unannounced write in a read',
      timeoutMs: 25_000,
      everyMs: 50,
    });
  });
});
