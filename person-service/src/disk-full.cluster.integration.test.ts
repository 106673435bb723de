import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsCluster, type TestNatsCluster } from '@restbus/infra/testing';
import {
  countLoad,
  findLostWrites,
  printCounts,
  startMixedLoad,
  startPersonStack,
  type PersonStack,
} from './testing/mixed-load';

// Issue 33, item 3: a node's disk full, under the mixed load of the leader-kill test (8 clients, half of their
// calls PUTs; two person-service replicas and the gateway). Node 1 stores JetStream on a tmpfs of its own, which is
// filled to the last byte for a while and then freed. The gateway and one replica start on that node. Every call is
// to succeed or answer 503 with Retry-After, and every acknowledged write is to be there afterwards. The cluster
// pings as the cluster stack's config does. It needs nats-server 2.10 or later (every test runs 2.15): on 2.9.10
// (Debian bookworm's) the failed write of a store deadlocks the node (msgBlock.writeMsgRecord calls
// fileStore.rebuildStateLocked under the block's lock; fixed in 2.9.12 by nats-io/nats-server 598e272), and it stays
// wedged after the disk is freed, with every route or client connection that hands it a JetStream request: calls
// answered 504 after 12 s, reads too.
const STORE_MB = 64;
const FAULT_AT_MS = 3000;
const FULL_MS = 10_000;
const AFTER_MS = 3000;

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

describe("a node's disk full (its JetStream store on a small tmpfs, filled)", () => {
  let cluster: TestNatsCluster | undefined;
  let stack: PersonStack | undefined;
  let store: string | undefined;
  let mounted = false;

  beforeAll(async () => {
    store = await mkdtemp(join(tmpdir(), 'restbus-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${STORE_MB}m`, 'tmpfs', store], { stdio: 'pipe' });
      mounted = true;
    } catch (err) {
      const why = String((err as { stderr?: Buffer }).stderr ?? err).trim();
      throw new Error(
        `this test mounts a ${STORE_MB} MB tmpfs at ${store} for one node's JetStream store, which needs root ` +
          `(CI runs as root) or CAP_SYS_ADMIN; mount said: ${why}`,
      );
    }
    cluster = await startNatsCluster({
      faults: true,
      pingInterval: '1s',
      pingMax: 2,
      storeDirs: [store],
    });
    // The gateway and one replica start on the node whose disk fills, the other replica on the others.
    const full = cluster.faults?.client(cluster.nodes[0]).port;
    const onFullNode = new Set(['gateway', 'person-service-1']);
    stack = await startPersonStack(cluster, {
      serversOf: (program) => (onFullNode.has(program) ? `nats://127.0.0.1:${full}` : undefined),
    });
  });

  afterAll(async () => {
    stack?.stop();
    await cluster?.dispose();
    if (store) {
      if (mounted) execFileSync('umount', ['-l', store], { stdio: 'pipe' });
      await rm(store, { recursive: true, force: true });
    }
  });

  it('loses no acknowledged write and fails a call only with 503 and Retry-After', async () => {
    const { base } = stack as PersonStack;
    const { nodes } = cluster as TestNatsCluster;
    const load = startMixedLoad(base, 'full');
    await sleep(FAULT_AT_MS);
    const leader = await (cluster as TestNatsCluster).leaderOf('KV_persons');
    const fullAt = load.now();
    // Whatever room is left goes to one file: the node cannot store another byte.
    const filler = join(store as string, 'filler');
    const { bavail, bsize } = await statfs(store as string);
    await writeFile(filler, Buffer.alloc(Number(bavail) * Number(bsize))).catch(() => undefined);
    await sleep(FULL_MS);
    await rm(filler, { force: true });
    await load.stopAfter(AFTER_MS);
    const lost = await findLostWrites(base, load.written);
    const counts = countLoad(
      'disk full',
      load,
      lost,
      fullAt,
      `the store of ${nodes[0].url} (${nodes[0] === leader ? 'leading' : 'not leading'} KV_persons) ` +
        `filled ${(fullAt / 1000).toFixed(1)} s in for ${FULL_MS} ms.`,
    );
    printCounts(counts, stack as PersonStack);
    if (counts.unhelpful.length > 0 || lost.length > 0) {
      process.stdout.write(`the full node's log (its end):\n${nodes[0].output()}\n`);
    }
    expect(counts.unhelpful.map((o) => `${o.kind} ${o.status}`)).toEqual([]);
    expect(lost).toEqual([]);
  });
});
