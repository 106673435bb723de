import pino from 'pino';
import { startNatsServer, type TestNatsServer } from '../testing';
import { createNatsLink, type NatsLink } from './create-nats-link';

const logger = pino({ level: 'silent' });
let server: TestNatsServer;
let link: NatsLink | undefined;

beforeEach(async () => {
  server = await startNatsServer();
});

afterEach(async () => {
  await link?.drain();
  await server.dispose();
});

async function waitFor(condition: () => boolean, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

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
    await waitFor(() => !link!.isConnected());
    await server.start();
    await waitFor(() => link!.isConnected());
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
