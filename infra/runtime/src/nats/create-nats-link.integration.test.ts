import { Writable } from 'node:stream';
import pino from 'pino';
import { startNatsServer, waitFor, type TestNatsServer } from '../testing';
import { createNatsLink, type NatsLink } from './create-nats-link';

const logger = pino({ level: 'silent' });
let server: TestNatsServer;
let link: NatsLink | undefined;

// One server for the file: a test that stops it leaves it to be started again for the next.
beforeAll(async () => {
  server = await startNatsServer();
});

afterEach(async () => {
  await link?.drain();
  link = undefined;
  if (server.pid === undefined) await server.start();
});

afterAll(async () => {
  await server?.dispose();
});

describe('createNatsLink', () => {
  it('connects and reports itself connected', async () => {
    link = createNatsLink({ servers: server.url, name: 'test', logger });
    await link.ready();
    expect(link.isConnected()).toBe(true);
  });

  it('waits for a server that is not there at start, then connects', async () => {
    await server.stop();
    link = createNatsLink({ servers: server.url, name: 'test', logger });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(link.isConnected()).toBe(false);
    await server.start();
    await link.ready();
    expect(link.isConnected()).toBe(true);
  });

  it('reports the loss of the server and reconnects when it returns', async () => {
    link = createNatsLink({ servers: server.url, name: 'test', logger });
    await link.ready();
    await server.stop();
    await waitFor(() => !link!.isConnected(), { what: 'the link reporting the loss', timeoutMs: 20_000 });
    await server.start();
    await waitFor(() => link!.isConnected(), { what: 'the reconnect', timeoutMs: 20_000 });
  });
});

/** A logger whose JSON lines the test reads. */
function createCapturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('what the link logs through an outage', () => {
  it('writes one line per change of state, and no stack trace for a NATS that is not there', async () => {
    const { logger: capturing, lines } = createCapturingLogger();
    await server.stop();
    link = createNatsLink({ servers: server.url, name: 'test', logger: capturing });
    // Long enough for several failed attempts (one every 500 ms).
    await new Promise((resolve) => setTimeout(resolve, 1800));
    await server.start();
    await link.ready();
    await server.stop();
    await waitFor(() => !link!.isConnected(), { what: 'the link reporting the loss', timeoutMs: 20_000 });
    // Long enough for several reconnect attempts (one a second).
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await server.start();
    await waitFor(() => link!.isConnected(), { what: 'the reconnect', timeoutMs: 20_000 });

    const nats = lines.filter((line) => line.component === 'nats');
    expect(nats.map((line) => [line.level, line.msg])).toEqual([
      [40, `NATS is not reachable at ${server.url}; retrying until it is`],
      [30, expect.stringMatching(/^connected to NATS at /)],
      [40, expect.stringMatching(/^lost NATS at .*; reconnecting until it is back$/)],
      [30, expect.stringMatching(/^reconnected to NATS at /)],
    ]);
    expect(nats[0]).toMatchObject({ servers: [server.url], reason: 'CONNECTION_REFUSED' });
    expect(nats[0]).not.toHaveProperty('err');
  });

  it('logs a failure that is not an outage under err', async () => {
    const { logger: capturing, lines } = createCapturingLogger();
    link = createNatsLink({ servers: 'nats://exa mple:4222', name: 'test', logger: capturing });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const nats = lines.filter((line) => line.component === 'nats');
    expect(nats).toHaveLength(1);
    expect(nats[0]).toMatchObject({ level: 50, err: { message: expect.any(String) } });
  });
});

describe('draining a link that never connected', () => {
  it('stops trying and rejects ready()', async () => {
    await server.stop();
    const lonely = createNatsLink({ servers: server.url, name: 'test', logger });
    await lonely.drain();
    await expect(lonely.ready()).rejects.toThrow('closed before it connected');
    expect(lonely.isConnected()).toBe(false);
  });
});
