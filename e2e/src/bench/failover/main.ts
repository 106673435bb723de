// The e2e failover figures the stack and cluster suites used to assert, measured (issue 45: npm test asserts
// outcomes, a benchmark prints figures). Run after `tsc -b && tsc -p e2e/tsconfig.bench.json`:
//   node e2e/dist/bench/failover/main.js          (BENCH_FAILOVER_STACKS=compose or cluster: one of the two)
//
//   compose stack  NATS restarted while the services idle: until the lists answer, then until writes made after it
//                  show in both lists (bound 5 s; stack.e2e)
//                  a service that takes the call and never replies: until the 504 (at least the gateway's timeout)
//   cluster stack  gateway-1 killed under load: the failures' distance from the kill (bound 2 s; cluster.e2e)
//                  the NATS leader killed and started again: until every answer is 200 again (bound 15 s)
//
// Each figure is printed with its bound and a verdict, PASS or OVER ITS BOUND; the exit code is 0 either way unless
// the benchmark itself failed.
import '../../setup-env';
import { loadavg } from 'node:os';
import { connect } from 'nats';
import { runLoad } from '../../cluster-load';
import { startClusterStack, type ClusterStack } from '../../cluster-stack';
import { startComposeStack, type ComposeStack } from '../../compose-stack';

const RATE = 40;
const STACKS = process.env.BENCH_FAILOVER_STACKS ?? 'compose,cluster';

interface Row {
  stack: string;
  figure: string;
  ms: number;
  /** `max`: the figure must stay at or under `bound`; `min`: at or over it. */
  bound?: { ms: number; kind: 'max' | 'min' };
}
const rows: Row[] = [];
const progress = (message: string): boolean => process.stderr.write(`${message}\n`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function record(row: Row): void {
  rows.push(row);
  progress(`  ${row.figure}: ${Math.round(row.ms)} ms`);
}

/** Polls `check` every 100 ms until it passes; the ms it took (Infinity after `limitMs`). */
async function until(check: () => Promise<boolean>, limitMs = 120_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await check().catch(() => false)) return performance.now() - started;
    await sleep(100);
  }
  return Infinity;
}

async function composeFigures(stack: ComposeStack): Promise<void> {
  const url = (path: string): string => `${stack.gatewayUrl}${path}`;
  const listIds = async (path: string): Promise<string[]> => {
    const response = await fetch(url(path));
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return ((await response.json()) as Array<{ id: string }>).map((one) => one.id);
  };
  progress('compose: NATS restarted while the services idle');
  await stack.restartService('nats');
  const listsAfter = await until(async () => (await fetch(url('/persons'))).status === 200);
  const writes = await until(async () => {
    const put = await fetch(url('/persons/han'), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'han', familyName: 'Solo', givenName: 'Han' }),
    });
    if (put.status !== 200) return false;
    await fetch(url('/systems'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'after-restart', name: 'after the restart' }),
    });
    return (
      (await listIds('/persons')).includes('han') && (await listIds('/systems?limit=1000')).includes('after-restart')
    );
  });
  record({ stack: 'compose', figure: 'NATS restarted, services idle: until both lists answer', ms: listsAfter });
  record({
    stack: 'compose',
    figure: 'then until writes made after it show in both lists',
    ms: writes,
    bound: { ms: 5000, kind: 'max' },
  });

  progress('compose: a service that takes the call and never replies');
  await stack.stopService('person-service-1');
  await stack.stopService('person-service-2');
  const nc = await connect({ servers: stack.natsUrl() });
  try {
    nc.subscribe('easer.get_/persons', { callback: () => undefined });
    await nc.flush();
    const started = performance.now();
    const response = await fetch(url('/persons'));
    await response.arrayBuffer();
    record({
      stack: 'compose',
      figure: `until the ${response.status} (the gateway's timeout)`,
      ms: performance.now() - started,
      bound: { ms: 2000, kind: 'min' },
    });
  } finally {
    await nc.close();
  }
}

async function clusterFigures(stack: ClusterStack): Promise<void> {
  progress('cluster: gateway-1 killed under load');
  const run = await runLoad(
    {
      baseUrl: stack.lbUrl,
      ratePerSecond: RATE,
      durationMs: 12_000,
      faultAtMs: 3000,
      fault: () => stack.kill('gateway-1'),
    },
    [],
  );
  const failed = run.outcomes.filter((o) => o.status < 200 || o.status >= 300);
  const spread = failed.reduce((most, o) => Math.max(most, Math.abs(o.at - run.faultAt!)), 0);
  record({
    stack: 'cluster',
    figure: `gateway-1 killed: the farthest of ${failed.length} failures from the kill`,
    ms: spread,
    bound: { ms: 2000, kind: 'max' },
  });
  await stack.start('gateway-1');

  progress('cluster: the NATS leader killed and started again');
  const leader = await stack.leaderOf('KV_persons');
  if (!leader) throw new Error('no node leads KV_persons');
  const known: string[] = [];
  await runLoad(
    { baseUrl: stack.lbUrl, ratePerSecond: RATE, durationMs: 8000, faultAtMs: 3000, fault: () => stack.kill(leader) },
    known,
  );
  await stack.start(leader);
  // Every answer 200 for 2 s in a row: measured until the first of those rounds.
  const rejoined = performance.now();
  let healthySince: number | undefined;
  while (performance.now() - rejoined < 120_000) {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => fetch(`${stack.lbUrl}/persons/${known[i % known.length]}`)),
    );
    if (answers.every((answer) => answer.status === 200)) {
      healthySince ??= performance.now();
      if (performance.now() - healthySince > 2000) break;
    } else healthySince = undefined;
    await sleep(200);
  }
  record({
    stack: 'cluster',
    figure: `${leader} killed and started again: until every answer is 200`,
    ms: healthySince === undefined ? Infinity : healthySince - rejoined,
    bound: { ms: 15_000, kind: 'max' },
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  for (const [name, start, measure] of [
    ['compose', startComposeStack, composeFigures],
    ['cluster', startClusterStack, clusterFigures],
  ] as const) {
    if (!STACKS.split(',').includes(name)) continue;
    progress(`starting the ${name} stack (load average ${loadavg()[0].toFixed(2)})`);
    const stack = await start();
    try {
      await (measure as (stack: unknown) => Promise<void>)(stack);
    } finally {
      await stack.down();
    }
  }
  const within = (row: Row): boolean =>
    !row.bound || (row.bound.kind === 'max' ? row.ms <= row.bound.ms : row.ms >= row.bound.ms);
  const lines = rows.map((row) => {
    const bound = row.bound ? ` (${row.bound.kind === 'max' ? 'at most' : 'at least'} ${row.bound.ms} ms)` : '';
    const verdict = row.bound ? (within(row) ? '  PASS' : '  OVER ITS BOUND') : '';
    return `${row.stack}: ${row.figure}: ${Number.isFinite(row.ms) ? Math.round(row.ms) : 'never'} ms${bound}${verdict}`;
  });
  const over = rows.filter((row) => !within(row)).length;
  process.stdout.write(
    `e2e failover figures (${((performance.now() - started) / 1000).toFixed(0)} s, load average ${loadavg()[0].toFixed(2)})\n` +
      `${lines.join('\n')}\nverdict: ${over === 0 ? 'PASS' : `${over} figure(s) OVER ITS BOUND`}\n`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`e2e failover bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
