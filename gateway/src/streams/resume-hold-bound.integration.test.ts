import { connect, type NatsConnection } from 'nats';
import { createLogger } from '@restbus/infra';
import { startNatsServer, waitFor, type TestNatsServer } from '@restbus/infra/testing';
import { createEventSources, type EventSources } from './event-sources';
import type { StreamClient } from './stream-client';
import type { StreamEvent } from './stream-event';

let server: TestNatsServer;
let nc: NatsConnection;
let sources: EventSources;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  sources = createEventSources({
    nc,
    logger: createLogger({ name: 'test', level: 'silent', format: 'json' }),
    holdMax: 10,
  });
});
afterAll(async () => {
  await sources?.close();
  await nc?.close();
  await server?.dispose();
});

/** A client that takes events only when let go: its replay waits on `drained` until then. */
function createGatedClient() {
  const events: StreamEvent[] = [];
  let open: () => void = () => undefined;
  let gate: Promise<void> | undefined = new Promise<void>((resolve) => (open = resolve));
  const client: StreamClient = {
    deliver: (event) => void events.push(event),
    drained: () => gate,
    end: () => undefined,
    onEnd: () => undefined,
  };
  return {
    client,
    events,
    letGo() {
      gate = undefined;
      open();
    },
  };
}

it('holds at most its bound of live events while a slow replay runs, and still delivers every event once, in order', async () => {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'HOLD', subjects: ['hold.>'] });
  const js = nc.jetstream();
  for (let i = 1; i <= 50; i++) await js.publish('hold.a', JSON.stringify({ i }));

  const slow = createGatedClient();
  // A live client first, so that the feed runs: the resuming one joins it.
  const live = createGatedClient();
  live.letGo();
  const leaveLive = await sources.attach({ subject: 'hold.a', stream: 'HOLD' }, live.client);
  // Its replay waits on the client before the first event it sends.
  const attached = sources.attach({ subject: 'hold.a', stream: 'HOLD', since: 0 }, slow.client);
  try {
    // 100 live events meanwhile: the live client gets them all, the slow one holds at most 10.
    for (let i = 51; i <= 150; i++) await js.publish('hold.a', JSON.stringify({ i }));
    await waitFor(() => live.events.length === 100, { what: 'the 100 live events at the live client' });
    expect(slow.events).toHaveLength(0);
    expect(sources.held()).toBeLessThanOrEqual(10);
  } finally {
    slow.letGo();
  }
  const leave = await attached;
  try {
    await waitFor(() => slow.events.length >= 150, { what: 'the 150 events at the slow client' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slow.events.map((event) => event.event)).not.toContain('gap');
    expect(slow.events.map((event) => event.seq)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    expect(sources.held()).toBe(0);
  } finally {
    leave();
    leaveLive();
  }
});
