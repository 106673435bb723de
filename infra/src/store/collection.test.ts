import { connect, type NatsConnection } from 'nats';
import { startNatsServer, type TestNatsServer } from '../testing';
import { createMemoryCollection, type Collection } from './collection';
import { openKvCollection } from './kv-collection';

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

async function waitUntil(condition: () => Promise<boolean>, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Item {
  name: string;
}

const implementations: Array<[string, () => Promise<Collection<Item>>]> = [
  ['memory', async () => createMemoryCollection<Item>()],
  ['JetStream KV', () => openKvCollection<Item>(nc, `test${bucket++}`)],
];

describe.each(implementations)('a %s collection', (_name, open) => {
  it('lists nothing at first', async () => {
    expect(await (await open()).list()).toEqual([]);
  });

  it('lists in insertion order, a replaced value keeping its place', async () => {
    const items = await open();
    await items.put('b', { name: 'B' });
    await items.put('a', { name: 'A' });
    await items.put('c/with spaces & ünïcode', { name: 'C' });
    await items.put('b', { name: 'B2' });
    expect(await items.list()).toEqual([{ name: 'B2' }, { name: 'A' }, { name: 'C' }]);
    expect(await items.get('c/with spaces & ünïcode')).toEqual({ name: 'C' });
  });

  it('creates only when the id is free', async () => {
    const items = await open();
    expect(await items.create('x', { name: 'first' })).toBe(true);
    expect(await items.create('x', { name: 'second' })).toBe(false);
    expect(await items.get('x')).toEqual({ name: 'first' });
  });

  it('removes one value, then clears all', async () => {
    const items = await open();
    await items.put('a', { name: 'A' });
    await items.put('b', { name: 'B' });
    expect(await items.remove('a')).toBe(true);
    expect(await items.remove('a')).toBe(false);
    expect(await items.get('a')).toBeUndefined();
    expect(await items.list()).toEqual([{ name: 'B' }]);
    await items.clear();
    expect(await items.list()).toEqual([]);
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
    expect(await items.list()).toEqual([]);
  });

  it('keeps "\udfff" and "\ufffd" apart: the first is refused, the second stored', async () => {
    const items = await open();
    await expect(items.create('\udfff', { name: 'lone' })).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
    expect(await items.create('\ufffd', { name: 'replacement' })).toBe(true);
  });

  it('loses no update when writers race on one id', async () => {
    const items = await open();
    await Promise.all(Array.from({ length: 20 }, (_, i) => items.put('hot', { name: String(i) })));
    expect(await items.list()).toHaveLength(1);
  });
});

describe('a JetStream KV collection', () => {
  it('lists what the stream holds after the stream is purged behind its back, and after new writes', async () => {
    const name = `purged${bucket++}`;
    const items = await openKvCollection<Item>(nc, name);
    await items.put('a', { name: 'A' });
    await items.put('b', { name: 'B' });
    expect(await items.list()).toHaveLength(2);
    const jsm = await nc.jetstreamManager();
    await jsm.streams.purge(`KV_${name}`);
    expect(await items.list()).toEqual([]);
    expect(await items.get('a')).toBeUndefined();
    await items.put('c', { name: 'C' });
    expect(await items.list()).toEqual([{ name: 'C' }]);
  });

  it('forgets a key purged from the stream by subject', async () => {
    const name = `subjectpurge${bucket++}`;
    const items = await openKvCollection<Item>(nc, name);
    await items.put('a', { name: 'A' });
    await items.put('b', { name: 'B' });
    expect(await items.list()).toHaveLength(2);
    const jsm = await nc.jetstreamManager();
    const key = Buffer.from('a', 'utf8').toString('base64url');
    await jsm.streams.purge(`KV_${name}`, { filter: `$KV.${name}.${key}` });
    expect(await items.list()).toEqual([{ name: 'B' }]);
  });

  it('answers STORE_UNAVAILABLE, not a bare error, while NATS is down, and serves again once it is back', async () => {
    const name = `outage${bucket++}`;
    const own = await connect({ servers: server.url, reconnectTimeWait: 50, maxReconnectAttempts: -1 });
    try {
      const items = await openKvCollection<Item>(own, name);
      await items.put('a', { name: 'A' });
      await server.stop();
      await expect(items.get('a')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 });
      await expect(items.put('b', { name: 'B' })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(items.list()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await server.start();
      await waitUntil(async () => (await items.get('a').catch(() => undefined)) !== undefined);
      expect(await items.get('a')).toEqual({ name: 'A' });
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
      expect(await second.list()).toEqual([{ name: 'Luke' }]);
    } finally {
      await other.close();
    }
  });
});
