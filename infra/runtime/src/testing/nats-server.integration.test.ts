import { createServer, type Server } from 'node:net';
import { connect } from 'nats';
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
