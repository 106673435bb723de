import { connect } from 'nats';
import pino from 'pino';
import { createNatsLink, type NatsLink } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { KvWindowCounts } from './kv-window-counts';
import type { Lease } from './window-counts';

const logger = pino({ level: 'silent' });
const BUCKET = 'test_rate_limits';
let server: TestNatsServer;
const links: NatsLink[] = [];

function openCounts(): KvWindowCounts {
  const link = createNatsLink({ servers: server.url, name: 'test', logger });
  links.push(link);
  return new KvWindowCounts({ link: () => link, bucket: BUCKET, ttlMs: 3_600_000, maxBytes: 1024 * 1024, logger });
}

const granted = (leases: Lease[]): number =>
  leases.reduce((sum, lease) => sum + (lease.kind === 'granted' ? lease.units : 0), 0);

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await Promise.all(links.map((link) => link.drain()));
  await server.dispose();
});

describe('KvWindowCounts on a real nats-server', () => {
  it('never grants three gateways racing for one client more than the limit together', async () => {
    const gateways = [openCounts(), openCounts(), openCounts()];
    // Each gateway asks again once its last lease is answered, as the ledger does; the three at once.
    const leases = (
      await Promise.all(
        gateways.map(async (counts) => {
          const mine: Lease[] = [];
          for (let i = 0; i < 20; i++) mine.push(await counts.take('slot.racing', 7, 3, 100));
          return mine;
        }),
      )
    ).flat();
    expect(granted(leases)).toBeLessThanOrEqual(100);
    // The races cost retries, not calls: the whole limit is granted, and the count says exactly what was.
    expect(granted(leases)).toBe(100);
    expect(await readValue('slot.racing')).toBe('7:100');
    expect(await gateways[0].take('slot.racing', 7, 50, 100)).toEqual({ kind: 'spent', used: 100 });
  });

  it('grants what is left and no more, then says the window is spent', async () => {
    const counts = openCounts();
    expect(await counts.take('slot.left', 1, 8, 10)).toEqual({ kind: 'granted', units: 8, used: 8 });
    expect(await counts.take('slot.left', 1, 8, 10)).toEqual({ kind: 'granted', units: 2, used: 10 });
    expect(await counts.take('slot.left', 1, 8, 10)).toEqual({ kind: 'spent', used: 10 });
  });

  it('starts each new window of a client at 0 in the same key', async () => {
    const counts = openCounts();
    await counts.take('slot.turn', 1, 10, 10);
    expect(await counts.take('slot.turn', 2, 4, 10)).toEqual({ kind: 'granted', units: 4, used: 4 });
    expect(await readValue('slot.turn')).toBe('2:4');
  });

  it('replaces a value that is no count of its own (written by hand) with a count of the window', async () => {
    await writeValue('slot.garbage', '{"not":"a count"}');
    const counts = openCounts();
    expect(await counts.take('slot.garbage', 5, 3, 10)).toEqual({ kind: 'granted', units: 3, used: 3 });
  });

  it('answers unavailable, never throws, while NATS is away', async () => {
    const counts = openCounts();
    await counts.take('slot.away', 1, 1, 10);
    await server.stop();
    try {
      expect(await counts.take('slot.away', 1, 1, 10)).toEqual({ kind: 'unavailable' });
    } finally {
      await server.start();
    }
  });
});

async function readValue(key: string): Promise<string | undefined> {
  const nc = await connect({ servers: server.url });
  try {
    const kv = await nc.jetstream().views.kv(BUCKET);
    const entry = await kv.get(key);
    return entry ? entry.string() : undefined;
  } finally {
    await nc.close();
  }
}

async function writeValue(key: string, value: string): Promise<void> {
  const nc = await connect({ servers: server.url });
  try {
    const kv = await nc.jetstream().views.kv(BUCKET, { history: 1 });
    await kv.put(key, value);
  } finally {
    await nc.close();
  }
}
