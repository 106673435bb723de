import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { startFaultProxy, type FaultProxy } from './fault-proxy';

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

async function until(check: () => boolean, ms = 2000): Promise<number> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(5);
  }
  return performance.now() - started;
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

  it('forwards each chunk the delay later each way, in order', async () => {
    proxy = await startFaultProxy(echoPort(), { kind: 'delay', delayMs: 100 });
    const client = await open(proxy.port);
    const started = performance.now();
    client.socket.write('a');
    await sleep(10);
    client.socket.write('b');
    await until(() => client.received() === 'ab');
    // There and back: twice the delay.
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    proxy.setMode({ kind: 'pass' });
    const fast = performance.now();
    client.socket.write('c');
    await until(() => client.received() === 'abc');
    expect(performance.now() - fast).toBeLessThan(100);
  });

  it('closes the other end when one end closes', async () => {
    proxy = await startFaultProxy(echoPort());
    const client = await open(proxy.port);
    await until(() => proxy?.connections() === 1);
    client.socket.end();
    await until(() => proxy?.connections() === 0);
  });
});
