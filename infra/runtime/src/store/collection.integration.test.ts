import { connect, type NatsConnection } from 'nats';
import { startNatsServer, waitFor, type TestNatsServer } from '../testing';
import { createMemoryCollection, type Collection } from './collection';
import { openKvCollection } from './kv-collection';
import pino from 'pino';
import { runInHandlerScope } from '../executive/handler-scope';
import { createDeadlineQueue } from '../executive/create-deadline-queue';

let server: TestNatsServer;
let nc: NatsConnection;
let bucket = 0;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});
afterAll(async () => {
  await nc?.close();
  await server?.dispose();
});

/** Runs `call` as a handler would, with its answer due in `ms` (a deadline made as the executive makes it). */
async function withDeadline<R>(ms: number, call: () => Promise<R>): Promise<R> {
  const deadline = createDeadlineQueue(ms).add(() => undefined);
  try {
    return await runInHandlerScope(
      { fail: () => undefined, logger: pino({ level: 'silent' }), deadline: deadline.at },
      call,
    );
  } finally {
    deadline.cancel();
  }
}

/** What `promise` settled with, or 'still pending' when `ms` passed first (a deadline on a timer, not a clock). */
function settledWithin<T>(promise: Promise<T>, ms: number): Promise<PromiseSettledResult<T> | 'still pending'> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(
      (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
      (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
    ),
    new Promise<'still pending'>((resolve) => (timer = setTimeout(() => resolve('still pending'), ms))),
  ]).finally(() => clearTimeout(timer));
}

interface Item {
  name: string;
}

const implementations: Array<[string, () => Promise<Collection<Item>>]> = [
  ['memory', async () => createMemoryCollection<Item>()],
  ['JetStream KV', () => openKvCollection<Item>(nc, `test${bucket++}`)],
  ['JetStream KV (reads announced)', () => openKvCollection<Item>(nc, `test${bucket++}`, { reads: 'announced' })],
];

describe.each(implementations)('a %s collection', (_name, open) => {
  it('lists nothing at first', async () => {
    expect((await (await open()).list()).items).toEqual([]);
  });

  it('lists in insertion order, a replaced value keeping its place', async () => {
    const items = await open();
    await items.put('b', { name: 'B' });
    await items.put('a', { name: 'A' });
    await items.put('c/with spaces & ünïcode', { name: 'C' });
    await items.put('b', { name: 'B2' });
    expect((await items.list()).items).toEqual([{ name: 'B2' }, { name: 'A' }, { name: 'C' }]);
    expect((await items.get('c/with spaces & ünïcode')).value).toEqual({ name: 'C' });
  });

  it('creates only when the id is free', async () => {
    const items = await open();
    expect(await items.create('x', { name: 'first' })).toBe(true);
    expect(await items.create('x', { name: 'second' })).toBe(false);
    expect((await items.get('x')).value).toEqual({ name: 'first' });
  });

  it('removes one value, then clears all', async () => {
    const items = await open();
    await items.put('a', { name: 'A' });
    await items.put('b', { name: 'B' });
    expect(await items.remove('a')).toBe(true);
    expect(await items.remove('a')).toBe(false);
    expect((await items.get('a')).value).toBeUndefined();
    expect((await items.list()).items).toEqual([{ name: 'B' }]);
    await items.clear();
    expect((await items.list()).items).toEqual([]);
    expect(await items.create('b', { name: 'again' })).toBe(true);
  });

  it.each([
    ['a lone surrogate', '\ud800'],
    ['a 3100-byte id', 'a'.repeat(3100)],
  ])('refuses an id with %s as REQUEST_INVALID in every operation, storing nothing', async (_what, id) => {
    const items = await open();
    const refused = { code: 'REQUEST_INVALID' };
    await expect(items.create(id, { name: 'x' })).rejects.toMatchObject(refused);
    await expect(items.put(id, { name: 'x' })).rejects.toMatchObject(refused);
    await expect(items.get(id)).rejects.toMatchObject(refused);
    await expect(items.remove(id)).rejects.toMatchObject(refused);
    expect((await items.list()).items).toEqual([]);
  });

  it('keeps "\udfff" and "\ufffd" apart: the first is refused, the second stored', async () => {
    const items = await open();
    await expect(items.create('\udfff', { name: 'lone' })).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
    expect(await items.create('\ufffd', { name: 'replacement' })).toBe(true);
  });

  it('pages a list by count and by bytes, the cursor leading on in insertion order after the value it names is gone', async () => {
    const items = await open();
    for (const name of ['a', 'b', 'c', 'd', 'e']) await items.put(name, { name });
    const first = await items.list({ limit: 2 });
    expect(first.items).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(first.next).toEqual(expect.any(String));
    await items.remove('b');
    const second = await items.list({ limit: 2, cursor: first.next });
    expect(second.items).toEqual([{ name: 'c' }, { name: 'd' }]);
    const last = await items.list({ limit: 2, cursor: second.next });
    expect(last).toMatchObject({ items: [{ name: 'e' }] });
    expect(last.next).toBeUndefined();
    // Bytes cut a page short, but never to nothing: a list always moves on.
    expect((await items.list({ maxBytes: 40 })).items.length).toBeLessThan(4);
    expect((await items.list({ maxBytes: 1 })).items).toEqual([{ name: 'a' }]);
  });

  it('cuts pages by the bytes their JSON takes, not its characters: a page of multi-byte text still fits', async () => {
    const items = await open();
    // 3 bytes a character in UTF-8: counted as characters, each value would look a third of its size.
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) await items.put(name, { name: '語'.repeat(100) });
    const maxBytes = 1000;
    const page = await items.list({ maxBytes });
    expect(page.items.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(page.json.text)).toBeLessThanOrEqual(maxBytes);
    expect(page.next).toEqual(expect.any(String));
  });

  it("gives each page's items as JSON text, which follows every change of the list", async () => {
    const items = await open();
    await items.put('a', { name: 'A' });
    const before = await items.list({ limit: 1 });
    expect(JSON.parse(before.json.text)).toEqual(before.items);
    expect((await items.list({ limit: 1 })).json.text).toBe('[{"name":"A"}]');
    await items.put('a', { name: 'A2' });
    await items.put('b', { name: 'B' });
    expect((await items.list({ limit: 1 })).json.text).toBe('[{"name":"A2"}]');
    expect((await items.list()).json.text).toBe('[{"name":"A2"},{"name":"B"}]');
    await items.remove('a');
    expect((await items.list()).json.text).toBe('[{"name":"B"}]');
    await items.clear();
    expect((await items.list()).json.text).toBe('[]');
  });

  it('refuses a cursor it did not give out as REQUEST_INVALID', async () => {
    const items = await open();
    await expect(items.list({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
  });

  it('loses no update when writers race on one id', async () => {
    const items = await open();
    await Promise.all(Array.from({ length: 20 }, (_, i) => items.put('hot', { name: String(i) })));
    expect((await items.list()).items).toHaveLength(1);
  });
});

describe('a JetStream KV collection', () => {
  it('lists what the stream holds after the stream is purged behind its back, and after new writes', async () => {
    const name = `purged${bucket++}`;
    const items = await openKvCollection<Item>(nc, name);
    await items.put('a', { name: 'A' });
    await items.put('b', { name: 'B' });
    expect((await items.list()).items).toHaveLength(2);
    const jsm = await nc.jetstreamManager();
    await jsm.streams.purge(`KV_${name}`);
    expect((await items.list()).items).toEqual([]);
    expect((await items.get('a')).value).toBeUndefined();
    await items.put('c', { name: 'C' });
    expect((await items.list()).items).toEqual([{ name: 'C' }]);
  });

  it('forgets a key purged from the stream by subject', async () => {
    const name = `subjectpurge${bucket++}`;
    const items = await openKvCollection<Item>(nc, name);
    await items.put('a', { name: 'A' });
    await items.put('b', { name: 'B' });
    expect((await items.list()).items).toHaveLength(2);
    const jsm = await nc.jetstreamManager();
    const key = Buffer.from('a', 'utf8').toString('base64url');
    await jsm.streams.purge(`KV_${name}`, { filter: `$KV.${name}.${key}` });
    expect((await items.list()).items).toEqual([{ name: 'B' }]);
  });

  it('serves reads from its copy marked stale while NATS is down, answers writes STORE_UNAVAILABLE by the deadline instead of waiting for NATS, and serves again once NATS is back', async () => {
    const name = `outage${bucket++}`;
    const own = await connect({ servers: server.url, reconnectTimeWait: 50, maxReconnectAttempts: -1 });
    try {
      const items = await openKvCollection<Item>(own, name);
      await items.put('a', { name: 'A' });
      await server.stop();
      // Reads answer from the service's copy, saying it may be stale; a write waits out the caller's deadline.
      expect(await items.get('a')).toEqual({ value: { name: 'A' }, stale: true });
      expect(await items.list()).toMatchObject({ items: [{ name: 'A' }], stale: true });
      // A key the copy lacks cannot be said absent while no replica can be asked: the store is unavailable.
      await expect(withDeadline(600, () => items.get('z'))).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        status: 503,
      });
      // NATS stays down meanwhile: an answer at all (well before ten times the deadline) is the deadline's doing.
      const answer = await settledWithin(
        withDeadline(600, () => items.put('b', { name: 'B' })),
        6000,
      );
      expect(answer).toMatchObject({ status: 'rejected', reason: { code: 'STORE_UNAVAILABLE', status: 503 } });
      await server.start();
      await waitFor(async () => (await items.get('a').catch(() => undefined))?.value !== undefined, {
        what: 'a read once NATS is back',
        timeoutMs: 20_000,
      });
      expect((await items.get('a')).value).toEqual({ name: 'A' });
    } finally {
      await own.close();
    }
  });

  it('keeps its values across a restart of NATS and is shared by two connections', async () => {
    const name = `durable${bucket++}`;
    const first = await openKvCollection<Item>(nc, name);
    await first.put('luke', { name: 'Luke' });
    await server.stop();
    await server.start();
    const other = await connect({ servers: server.url });
    try {
      const second = await openKvCollection<Item>(other, name);
      expect((await second.list()).items).toEqual([{ name: 'Luke' }]);
    } finally {
      await other.close();
    }
  });
});
