import { connect, type NatsConnection } from 'nats';
import { startNatsServer, waitFor, type TestNatsServer } from '../testing';
import { CONFIRMED_FOR_MS, startReadHorizon } from './read-horizon';

// A replica whose user may not subscribe to the write announcements (a tight permissions file, say).
const PERMISSIONS = `
no_auth_user: "free"
authorization {
  users: [
    { user: "free", password: "free" }
    { user: "deaf", password: "deaf", permissions: { subscribe: { deny: ["restbus.store.>"] } } }
  ]
}`;

let nats: TestNatsServer;
let deaf: NatsConnection;
let writer: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer({ extraConfig: PERMISSIONS });
  const { port } = new URL(nats.url);
  deaf = await connect({ servers: `127.0.0.1:${port}`, user: 'deaf', pass: 'deaf' });
  writer = await connect({ servers: `127.0.0.1:${port}`, user: 'free', pass: 'free' });
});

afterEach(() => {
  jest.useRealTimers();
});

afterAll(async () => {
  await deaf?.close();
  await writer?.close();
  await nats?.dispose();
});

test('a replica refused the write announcements keeps running and confirms every read with the stream', async () => {
  const uncaught: unknown[] = [];
  const record = (err: unknown): void => void uncaught.push(err);
  process.on('uncaughtException', record);
  try {
    const horizon = startReadHorizon(deaf, 'persons');
    // A confirmation that would stand for as long as can be: only deafness makes a read confirm again.
    horizon.confirmed(3, Number.MAX_VALUE);
    // The server refuses the subscription asynchronously (a flush would hang on a connection whose reader died of
    // its -ERR): the replica knows once it must confirm despite that confirmation.
    await waitFor(() => horizon.mustConfirm(), { what: 'the refusal of the announcements', timeoutMs: 10_000 });
    writer.publish('restbus.store.persons.written', '7');
    await writer.flush();
    expect(uncaught).toEqual([]);
    expect(deaf.isClosed()).toBe(false);
    await expect(deaf.flush()).resolves.toBeUndefined();
    // It cannot hear of writes, so no confirmation may stand for it.
    expect(horizon.mustConfirm()).toBe(true);
    horizon.stop();
  } finally {
    process.off('uncaughtException', record);
  }
});

describe('a replica that hears the write announcements', () => {
  // The interval is the behaviour: the test holds the clock (jest's fake performance clock starts at 0 and moves
  // only when the test moves it); the announcements cross a real server.
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  });

  it('lets a confirmation with the stream stand for CONFIRMED_FOR_MS and not a millisecond longer', () => {
    const horizon = startReadHorizon(writer, 'clocked');
    try {
      expect(horizon.mustConfirm()).toBe(true);
      jest.advanceTimersByTime(1);
      horizon.confirmed(4, 1);
      expect(horizon.mustConfirm()).toBe(false);
      expect(horizon.known).toBe(4);
      jest.advanceTimersByTime(CONFIRMED_FOR_MS - 1);
      expect(horizon.mustConfirm()).toBe(false);
      jest.advanceTimersByTime(1);
      expect(horizon.mustConfirm()).toBe(true);
    } finally {
      horizon.stop();
    }
  });

  it('needs a confirmation asked after a write whose sequence it does not know, however recent the last one', () => {
    const horizon = startReadHorizon(writer, 'unsure');
    try {
      jest.advanceTimersByTime(1);
      horizon.confirmed(4, 1);
      jest.advanceTimersByTime(1);
      horizon.announce(undefined);
      expect(horizon.mustConfirm()).toBe(true);
      // A confirmation asked before that write does not count; one asked after it does.
      horizon.confirmed(5, 1);
      expect(horizon.mustConfirm()).toBe(true);
      jest.advanceTimersByTime(1);
      horizon.confirmed(5, 3);
      expect(horizon.mustConfirm()).toBe(false);
    } finally {
      horizon.stop();
    }
  });
});
