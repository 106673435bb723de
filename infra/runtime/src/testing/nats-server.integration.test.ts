import { createServer, type Server } from 'node:net';
import { connect, Events } from 'nats';
import { startNatsCluster, type TestNatsCluster } from './nats-server';

/** A port another process holds: listening on it, as a parallel suite might after the harness found it free. */
async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

async function findFreePort(): Promise<number> {
  const { server, port } = await holdPort();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('startNatsCluster', () => {
  let cluster: TestNatsCluster | undefined;
  afterEach(() => cluster?.dispose());

  it('starts again on other ports when one it found free was taken before the node could listen on it', async () => {
    const held = await holdPort();
    let picks = 0;
    // The first pick of the first attempt is the taken port; every later pick is free.
    const findPort = (): Promise<number> => (picks++ === 0 ? Promise.resolve(held.port) : findFreePort());
    try {
      cluster = await startNatsCluster({ jetstream: false, findPort });
    } finally {
      held.server.close();
    }
    expect(picks).toBeGreaterThan(9);
    expect(cluster.nodes.map((node) => node.port)).not.toContain(held.port);
    const nc = await connect({ servers: cluster.nodes[0].url });
    await nc.close();
  });

  it("gives up with the nodes' own words when the ports are taken every time", async () => {
    const held = await holdPort();
    try {
      await expect(startNatsCluster({ jetstream: false, findPort: () => Promise.resolve(held.port) })).rejects.toThrow(
        /address already in use/,
      );
    } finally {
      held.server.close();
    }
  });
});

describe('a test node entering lame duck mode', () => {
  let cluster: TestNatsCluster | undefined;
  afterEach(() => cluster?.dispose());

  it('is stopped as soon as its clients have moved away, not after the rest of its grace period', async () => {
    cluster = await startNatsCluster({ jetstream: false, size: 2 });
    const [leaving] = cluster.nodes;
    const client = await connect({ servers: leaving.url, reconnect: false });
    // A client that moves: it leaves as soon as it hears the notice.
    void (async () => {
      for await (const status of client.status()) if (status.type === Events.LDM) await client.close();
    })();

    await leaving.enterLameDuck();

    expect(leaving.pid).toBeUndefined();
    expect(client.isClosed()).toBe(true);
    expect(leaving.output()).toContain('Trapped "interrupt" signal');
    expect(leaving.output()).not.toContain('Closing existing clients');
  });

  it('closes a client that stays only once its grace period is over, and then exits', async () => {
    cluster = await startNatsCluster({ jetstream: false, size: 2, lameDuckGraceSeconds: 1 });
    const [leaving] = cluster.nodes;
    const client = await connect({ servers: leaving.url, reconnect: false });
    const heard: string[] = [];
    void (async () => {
      for await (const status of client.status()) heard.push(status.type);
    })();

    await leaving.enterLameDuck();

    expect(leaving.pid).toBeUndefined();
    await client.closed();
    expect(heard).toContain(Events.LDM);
    expect(leaving.output()).toContain('Closing existing clients');
  });
});
