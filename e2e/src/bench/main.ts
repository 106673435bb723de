// `npm run bench:cluster`: the cluster stack against the single-node stack in one run, then a NATS node killed under
// load on the cluster, as a per-second table and an SVG chart.
import '../setup-env';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { formatTimeline, toTimeline } from '../cluster-load';
import { startClusterStack } from '../cluster-stack';
import { REPO_ROOT, startComposeStack } from '../compose-stack';
import { formatComparison } from './format-comparison';
import { measurePersonCalls, type PersonCallResults } from './measure-person-calls';
import { renderTimelineSvg } from './render-timeline-svg';
import { runLeaderKill, type LeaderKill } from './run-leader-kill';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 16;
const PERSONS = 100;
// The same bounded load as the cluster e2e test: 40 requests a second, half reads and half writes.
const RATE = 40;
const TIMELINE_MS = 25_000;
const KILL_AT_MS = 5000;
const STREAM = 'KV_persons';
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? join(REPO_ROOT, 'bench-results');

const progress = (message: string): boolean => process.stderr.write(`${message}\n`);
const load = (): string => loadavg()[0].toFixed(2);

/** Stacks still up: taken down on Ctrl-C too, since Docker here is shared and a stack holds ten containers. */
const running = new Set<{ down(): Promise<void> }>();

async function withStack<S extends { down(): Promise<void> }, T>(
  start: () => Promise<S>,
  use: (stack: S) => Promise<T>,
): Promise<T> {
  const stack = await start();
  running.add(stack);
  try {
    return await use(stack);
  } finally {
    progress('taking the stack down');
    await stack.down();
    running.delete(stack);
  }
}

function describeKill(kill: LeaderKill): string {
  const { summary, recovery, run } = kill;
  const faultAt = run.faultAt ?? KILL_AT_MS;
  const seconds = (ms: number | undefined): string =>
    ms === undefined ? `not within the run (${TIMELINE_MS / 1000} s)` : `${(ms / 1000).toFixed(1)} s`;
  return [
    `${kill.leader} (leader of ${STREAM}) SIGKILLed at ${(faultAt / 1000).toFixed(2)} s of a ${TIMELINE_MS / 1000} s run at ${RATE} requests/s (half reads, half writes):`,
    '',
    formatTimeline(toTimeline(run.outcomes), run.faultAt),
    '',
    `reads: ${summary.reads}, failed ${summary.failedReads}, answered stale (X-Restbus-Stale) ${summary.staleReads}`,
    `writes: ${summary.writes}, failed ${summary.failedWrites}, of them other than 503 + Retry-After: ${summary.writesFailedOtherwise}`,
    `acknowledged writes lost: ${kill.lost.length}`,
    `p50 ${summary.p50} ms, p99 ${summary.p99} ms over the run; p99 before the kill ${recovery.beforeP99} ms`,
    `from the kill until every second is error-free with p99 under ${2 * recovery.beforeP99} ms: ${seconds(recovery.recoveredAfterMs)}`,
    `from the kill until the first such second: ${seconds(recovery.firstHealthyAfterMs)}`,
    `${kill.leader} started again: healthy after ${(kill.rejoinMs / 1000).toFixed(1)} s`,
  ].join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const options = { persons: PERSONS, connections: CONNECTIONS, seconds: SECONDS };
  progress(`load average ${load()}; starting the single-node stack (docker-compose.yml)`);
  // The 1-minute load average as each measurement starts: the machine also runs the stack under test.
  const loads: string[] = [];
  const single: PersonCallResults = await withStack(startComposeStack, (stack) => {
    loads.push(`single node ${load()}`);
    return measurePersonCalls(stack.gatewayUrl, options);
  });
  progress(`load average ${load()}; starting the cluster stack (docker-compose.cluster.yml)`);
  const { cluster, kill } = await withStack(startClusterStack, async (stack) => {
    loads.push(`cluster ${load()}`);
    const measured = await measurePersonCalls(stack.lbUrl, options);
    progress(`killing the leader of ${STREAM} under load`);
    loads.push(`timeline ${load()}`);
    return {
      cluster: measured,
      kill: await runLeaderKill(stack, {
        ratePerSecond: RATE,
        durationMs: TIMELINE_MS,
        killAtMs: KILL_AT_MS,
        stream: STREAM,
      }),
    };
  });

  await mkdir(RESULTS_DIR, { recursive: true });
  const chart = join(RESULTS_DIR, 'cluster-timeline.svg');
  const timeline = toTimeline(kill.run.outcomes);
  await writeFile(
    chart,
    renderTimelineSvg(timeline, {
      title: `${RATE} requests/s through the load balancer; ${kill.leader}, leader of ${STREAM}, killed`,
      faultAt: kill.run.faultAt,
      faultLabel: `${kill.leader} killed`,
    }),
  );
  // The chart's numbers, for a note or another drawing.
  const { leader, summary, recovery, lost, rejoinMs } = kill;
  const data = { leader, faultAt: kill.run.faultAt, timeline, summary, recovery, lost, rejoinMs, single, cluster };
  await writeFile(join(RESULTS_DIR, 'cluster-bench.json'), `${JSON.stringify(data, null, 2)}\n`);
  process.stdout.write(
    [
      `wrk, 1 thread, ${CONNECTIONS} connections, ${SECONDS} s per figure after a 1 s warm-up; ${PERSONS} persons stored.`,
      'Single node: one gateway, one NATS server. Cluster: HAProxy, two gateways, three NATS nodes (buckets with three',
      'replicas), two replicas of each service, all on this one machine: the cluster does more work per call (a write',
      'is stored on three nodes) on the same cores, so it is slower here; the ratio is the figure to watch.',
      '',
      formatComparison(single, cluster, CONNECTIONS),
      '',
      describeKill(kill),
      '',
      `chart: ${chart} (numbers beside it in cluster-bench.json)`,
      `load average as each measurement started: ${loads.join(', ')}`,
      `wall time ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${load()}`,
      '',
    ].join('\n'),
  );
}

process.once('SIGINT', () => {
  progress('interrupted: taking the stacks down');
  void Promise.allSettled([...running].map((stack) => stack.down())).then(() => process.exit(130));
});

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
