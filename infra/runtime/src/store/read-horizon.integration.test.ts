import { connect, type NatsConnection } from 'nats';
import { startNatsServer, type TestNatsServer } from '../testing';
import { startReadHorizon } from './read-horizon';

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

afterAll(async () => {
  await deaf?.close();
  await writer?.close();
  await nats?.stop();
});

test('a replica refused the write announcements keeps running and confirms every read with the stream', async () => {
  const uncaught: unknown[] = [];
  const record = (err: unknown): void => void uncaught.push(err);
  process.on('uncaughtException', record);
  try {
    const horizon = startReadHorizon(deaf, 'persons');
    // The server refuses the subscription asynchronously: give its -ERR time to arrive (a flush would hang on a
    // connection whose reader died of it).
    await new Promise((done) => setTimeout(done, 500));
    writer.publish('restbus.store.persons.written', '7');
    await writer.flush();
    horizon.confirmed(3, performance.now());
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
