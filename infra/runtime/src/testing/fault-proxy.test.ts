import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { waitFor } from './wait-for';

let echo: Server;
let proxy: FaultProxy | undefined;
const clients: Socket[] = [];

beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await proxy?.close();
  proxy = undefined;
});

afterAll(async () => {
  await new Promise((resolve) => echo.close(resolve));
});

/** A client through the proxy that collects what comes back. */
async function open(port: number): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  const socket = connect(port, '127.0.0.1');
  clients.push(socket);
  let text = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, received: () => text, closed: () => closed };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const echoPort = (): number => (echo.address() as AddressInfo).port;

const until = (check: () => boolean): Promise<void> =>
  waitFor(check, { what: 'the expected bytes', timeoutMs: 20_000, everyMs: 5 });

// Kept before a test fakes the timers: sockets stay real, and a test waits for their bytes on a real timer.
const realSetTimeout = setTimeout;
/** Resolves once `check` holds, looking every few real milliseconds (for a test whose timers are fake). */
async function untilReal(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; !check(); attempt++) {
    if (attempt === 4000) throw new Error(`${what} did not happen`);
    await new Promise((resolve) => realSetTimeout(resolve, 5));
  }
}

describe('startFaultProxy', () => {
  it('forwards both ways while it passes', async () => {
    proxy = await startFaultProxy(echoPort());
    const client = await open(proxy.port);
    client.socket.write('hello');
    await until(() => client.received() === 'hello');
    expect(proxy.connections()).toBe(1);
  });

  it('keeps a blackholed connection open without forwarding, and delivers what it held once healed', async () => {
    proxy = await startFaultProxy(echoPort());
    const client = await open(proxy.port);
    proxy.setMode({ kind: 'blackhole' });
    client.socket.write('held');
    await sleep(200);
    expect(client.received()).toBe('');
    expect(client.closed()).toBe(false);
    // A connection made during the partition is accepted and hears nothing either.
    const late = await open(proxy.port);
    late.socket.write('late');
    await sleep(100);
    expect(late.received()).toBe('');
    proxy.setMode({ kind: 'pass' });
    await until(() => client.received() === 'held' && late.received() === 'late');
  });

  it('forwards each chunk the delay later each way, in order, and at once again once it passes', async () => {
    // The delay is the behaviour: the proxy's timers run on a fake clock the test moves; the sockets stay real.
    const target = createServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        arrived += chunk.toString();
        socket.write(chunk);
      });
    });
    let arrived = '';
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      proxy = await startFaultProxy((target.address() as AddressInfo).port, { kind: 'delay', delayMs: 100 });
      const client = await open(proxy.port);
      client.socket.write('a');
      // The chunk is in the proxy once its timer is: it goes on only when the clock has moved the whole delay.
      await untilReal(() => jest.getTimerCount() === 1, "the proxy holding 'a'");
      jest.advanceTimersByTime(99);
      expect(arrived).toBe('');
      client.socket.write('b');
      await untilReal(() => jest.getTimerCount() === 2, "the proxy holding 'b'");
      jest.advanceTimersByTime(1);
      await untilReal(() => arrived === 'a', "'a' at the far end");
      // Its echo is held as long on the way back; 'b' is on its way still.
      await untilReal(() => jest.getTimerCount() === 2, "the proxy holding the echo of 'a'");
      expect(client.received()).toBe('');
      jest.advanceTimersByTime(99);
      await untilReal(() => arrived === 'ab', "'b' at the far end");
      expect(client.received()).toBe('');
      jest.advanceTimersByTime(1);
      await untilReal(() => client.received() === 'a', "the echo of 'a'");
      jest.advanceTimersByTime(100);
      await untilReal(() => client.received() === 'ab', "the echo of 'b'");
      // Passing again, it forwards without waiting for the clock.
      proxy.setMode({ kind: 'pass' });
      client.socket.write('c');
      await untilReal(() => client.received() === 'abc', "'c' there and back");
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
      await proxy?.close();
      proxy = undefined;
      await new Promise((resolve) => target.close(resolve));
    }
  });

  it('closes the other end when one end closes', async () => {
    proxy = await startFaultProxy(echoPort());
    const client = await open(proxy.port);
    await until(() => proxy?.connections() === 1);
    client.socket.end();
    await until(() => proxy?.connections() === 0);
  });
});
