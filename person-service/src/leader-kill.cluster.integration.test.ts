import {
  countLoad,
  expectRideThrough,
  findLostWrites,
  measureElection,
  printCounts,
  RIDE_THROUGH_TIMEOUT_MS,
  startMixedLoad,
  usePersonStack,
} from './testing/mixed-load';

// Issue 33: the node leading the persons bucket is killed under a mixed load of 8 clients, half of their calls
// PUTs. Every call is to succeed (writes wait out the JetStream election within the time the gateway gives them)
// and every acknowledged write is to be there afterwards. The service runs with its default --handlerTimeout
// (1.5 s): the request carries the gateway's deadline, which is what a write may wait; the gateway's is
// RIDE_THROUGH_TIMEOUT_MS, so that an election slowed by a busy machine is waited out too.
const KILL_AT_MS = 3000;
// Load goes on this long after the kill: the election (up to ~8 s) and the calls made during it, answered.
const AFTER_KILL_MS = 12_000;

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

describe('person-service and the gateway on a 3-node NATS cluster', () => {
  const under = usePersonStack({}, { gatewayTimeoutMs: RIDE_THROUGH_TIMEOUT_MS });

  it(
    'answer every call of 8 clients (half PUTs) and keep every acknowledged write when the node leading ' +
      'the persons bucket is killed',
    async () => {
      const { base } = under.stack;
      const { cluster } = under;
      const load = startMixedLoad(base, 'lk');
      await sleep(KILL_AT_MS);
      const leader = await cluster.leaderOf('KV_persons');
      const killedAt = load.now();
      await leader.kill();
      const stopped = load.stopAfter(AFTER_KILL_MS);
      const elected = await cluster.leaderOf('KV_persons');
      const leaderKnownMs = load.now() - killedAt;
      await stopped;
      const lost = await findLostWrites(base, load.written);
      const electionMs = measureElection(load, killedAt, leaderKnownMs);
      const counts = countLoad(
        'leader kill',
        load,
        lost,
        killedAt,
        `node ${leader.url} led KV_persons, killed ${(killedAt / 1000).toFixed(1)} s in; ${elected.url} named ` +
          `leader after ${Math.round(leaderKnownMs)} ms.`,
        electionMs,
      );
      printCounts(counts);
      expectRideThrough(counts, electionMs);
    },
  );
});
