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

  it('loses no update when writers race on one id', async () => {
    const items = await open();
    await Promise.all(Array.from({ length: 20 }, (_, i) => items.put('hot', { name: String(i) })));
    expect(await items.list()).toHaveLength(1);
  });
});

describe('a JetStream KV collection', () => {
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
