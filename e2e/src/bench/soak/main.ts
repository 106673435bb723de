// `npm run bench:soak`: the cluster stack at a fixed mixed rate for SOAK_MINUTES (30 for a note) under a repeated
// fault (SOAK_FAULT: `kill`, a random NATS node killed and started again, or `rolling`, the three nodes restarted one
// after another through lame duck), every SOAK_FAULT_EVERY minutes; every process sampled every SOAK_SAMPLE_SECONDS:
// memory, heap, handles, NATS subscriptions and KV lag, drawn over time as SVG charts beside a JSON of the numbers.
import '../../setup-env';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, RequestStrategy, type NatsConnection } from 'nats';
import { findLostWrites, runLoad } from '../../cluster-load';
import { NATS_NODES, startClusterStack, type ClusterStack, type NatsNode } from '../../cluster-stack';
import { REPO_ROOT } from '../../compose-stack';
import { formatSoakReport } from './format-soak-report';
import { readKvLag, readMetric, type Sample } from './read-samples';
import { renderSeriesSvg, type Series } from './render-series-svg';
import { summariseSoak, type FaultWindow, type SampledMetric } from './summarise-soak';

const FAULT = process.env.SOAK_FAULT ?? 'kill';
if (FAULT !== 'kill' && FAULT !== 'rolling') {
  process.stderr.write(`SOAK_FAULT must be kill or rolling, not "${FAULT}"\n`);
  process.exit(2);
}
const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const RATE = Number(process.env.SOAK_RATE ?? 40);
const FAULT_EVERY_MINUTES = Number(process.env.SOAK_FAULT_EVERY ?? (FAULT === 'rolling' ? 1.5 : 5));
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 15);
// The writes overwrite this many persons in turn: the data stays one size, so memory that grows is a leak, not data.
const PERSONS = Number(process.env.SOAK_PERSONS ?? 2000);
// How long a killed node stays down.
const DOWN_SECONDS = Number(process.env.SOAK_DOWN_SECONDS ?? 20);
// How long after the cluster is whole again (the node healthy, the stream led) a fault window stays open: calls
// still queued or resent behind the fault are the fault's.
const SETTLE_SECONDS = Number(process.env.SOAK_SETTLE_SECONDS ?? (FAULT === 'rolling' ? 10 : 30));
// Growth is measured from here (after the warm-up) to the end; a shake-down shorter than 10 minutes uses its middle.
const GROWTH_FROM_MINUTE = Math.min(5, MINUTES / 2);
const STREAM = 'KV_persons';
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? join(REPO_ROOT, 'bench-results');

const progress = (message: string): boolean => process.stderr.write(`${new Date().toISOString()} ${message}\n`);
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const MIB = 1024 * 1024;

interface ServiceStats {
  name: string;
  endpoints?: Array<{
    data?: {
      rss?: number;
      heapUsed?: number;
      heapLive?: number;
      heapTotal?: number;
      external?: number;
      handles?: number;
    };
  }>;
}
interface Varz {
  mem?: number;
  subscriptions?: number;
}

/**
 * The soak's own connection, for `$SRV.STATS`. Opened again when it closed: a node started again has a new host
 * port, so after every node went once the first URLs lead nowhere.
 */
function createStatsConnection(stack: ClusterStack): {
  get(): Promise<NatsConnection | undefined>;
  close(): Promise<void>;
} {
  let nc: NatsConnection | undefined;
  return {
    get: async () => {
      if (nc && !nc.isClosed()) return nc;
      try {
        const servers = await Promise.all(NATS_NODES.map((node) => stack.natsUrl(node).catch(() => undefined)));
        nc = await connect({
          servers: servers.filter((server): server is string => !!server),
          name: 'bench-soak',
          // The cluster tells of its nodes by their compose names, which the host cannot resolve.
          ignoreClusterUpdates: true,
          maxReconnectAttempts: 5,
        });
      } catch {
        nc = undefined;
      }
      return nc;
    },
    close: async () => {
      await nc?.close().catch(() => undefined);
    },
  };
}

/**
 * What the services say of themselves over NATS ($SRV.STATS): memory and handles of each replica's process, named by
 * its compose service (`names`, by instance id), else by its service name and the end of its id.
 */
async function readServiceStats(
  nc: NatsConnection | undefined,
  names: ReadonlyMap<string, string>,
): Promise<Map<string, Omit<Sample, 'minute' | 'process'>>> {
  const found = new Map<string, Omit<Sample, 'minute' | 'process'>>();
  if (!nc) return found;
  try {
    const stats = await nc.services.client({ strategy: RequestStrategy.Timer, maxWait: 2000 }).stats();
    for await (const stat of stats) {
      const data = (stat as unknown as ServiceStats).endpoints?.find((endpoint) => endpoint.data)?.data;
      // A replica named by the end of its instance id, which its process keeps for life: the same name is the same
      // process in every sample, whichever replicas answered this time.
      found.set(names.get(stat.id) ?? `${stat.name} ${stat.id.slice(-5)}`, {
        rss: data?.rss,
        heap: data?.heapUsed,
        heapLive: data?.heapLive,
        heapTotal: data?.heapTotal,
        external: data?.external,
        handles: data?.handles,
      });
    }
  } catch {
    // NATS away for a moment (a fault): this sample goes without them.
  }
  return found;
}

async function sampleAll(
  stack: ClusterStack,
  nc: NatsConnection | undefined,
  names: ReadonlyMap<string, string>,
  minute: number,
): Promise<Sample[]> {
  const samples = new Map<string, Sample>();
  const of = (process: string): Sample => {
    let sample = samples.get(process);
    if (!sample) samples.set(process, (sample = { minute, process }));
    return sample;
  };
  for (const gateway of ['gateway-1', 'gateway-2'] as const) {
    const metrics = await stack.metricsOf(gateway).catch(() => '');
    if (!metrics) continue;
    of(gateway).rss = readMetric(metrics, 'restbus_gateway_process_resident_memory_bytes');
    of(gateway).heap = readMetric(metrics, 'restbus_gateway_nodejs_heap_size_used_bytes');
    of(gateway).heapLive = readMetric(metrics, 'restbus_gateway_nodejs_heap_live_bytes');
    of(gateway).heapTotal = readMetric(metrics, 'restbus_gateway_nodejs_heap_size_total_bytes');
    of(gateway).external = readMetric(metrics, 'restbus_gateway_nodejs_external_memory_bytes');
    of(gateway).handles = readMetric(metrics, 'restbus_gateway_nodejs_active_handles_total');
  }
  const views = new Map<string, unknown>();
  for (const node of NATS_NODES) {
    const varz = (await stack.monitorOf(node, '/varz').catch(() => undefined)) as Varz | undefined;
    if (varz?.mem !== undefined) of(node).rss = varz.mem;
    if (varz?.subscriptions !== undefined) of(node).subscriptions = varz.subscriptions;
    views.set(node, await stack.monitorOf(node, '/jsz?streams=true').catch(() => undefined));
  }
  // A node that is down has its lag too (the leader's view): how far it has to catch up once back.
  for (const [node, lag] of readKvLag(views, STREAM)) of(node).kvLag = lag;
  for (const [name, stats] of await readServiceStats(nc, names)) Object.assign(of(name), stats);
  return [...samples.values()];
}

function seriesOf(samples: readonly Sample[], metric: SampledMetric | 'kvLag', scale = 1): Series[] {
  const processes = [...new Set(samples.filter((s) => s[metric] !== undefined).map((s) => s.process))].sort();
  return processes.map((name) => ({
    name,
    points: samples
      .filter((s) => s.process === name && s[metric] !== undefined)
      .map((s): [number, number] => [s.minute, (s[metric] as number) / scale]),
  }));
}

async function waitForLeader(stack: ClusterStack): Promise<void> {
  for (let i = 0; i < 100 && !(await stack.leaderOf(STREAM)); i++) await sleep(200);
}

/** A random node killed (SIGKILL), left down, started again: resolves once it is healthy and the stream led. */
async function killOne(stack: ClusterStack, minuteNow: () => number): Promise<NatsNode[]> {
  const node: NatsNode = NATS_NODES[Math.floor(Math.random() * NATS_NODES.length)];
  progress(`minute ${minuteNow().toFixed(1)}: killing ${node}`);
  await stack.kill(node);
  await sleep(DOWN_SECONDS * 1000);
  await stack.start(node);
  await waitForLeader(stack);
  progress(`minute ${minuteNow().toFixed(1)}: ${node} healthy again`);
  return [node];
}

/** As cluster.e2e.test.ts: each node in turn into lame duck, started again, the next only once the stream is led. */
async function restartAllRolling(stack: ClusterStack, minuteNow: () => number, run: number): Promise<NatsNode[]> {
  const steps: string[] = [];
  for (const node of NATS_NODES) {
    const began = Date.now();
    await stack.enterLameDuck(node);
    const left = Date.now();
    await stack.start(node);
    await waitForLeader(stack);
    steps.push(
      `${node} ${((left - began) / 1000).toFixed(0)} s lame duck + ${((Date.now() - left) / 1000).toFixed(0)} s back`,
    );
  }
  progress(`minute ${minuteNow().toFixed(1)}: rolling restart ${run} done (${steps.join(', ')})`);
  return [...NATS_NODES];
}

async function main(): Promise<void> {
  const started = Date.now();
  const faultText =
    FAULT === 'rolling'
      ? `the three NATS nodes restarted one after another through lame duck every ${FAULT_EVERY_MINUTES} minutes`
      : `a random NATS node killed every ${FAULT_EVERY_MINUTES} minutes for ${DOWN_SECONDS} s`;
  progress(`starting the cluster stack for a ${MINUTES}-minute soak at ${RATE} requests/s; fault: ${faultText}`);
  const stack = await startClusterStack();
  progress(
    `cluster project ${stack.projectName} is healthy; load balancer at ${stack.lbUrl}; results to ${RESULTS_DIR}`,
  );
  const connection = createStatsConnection(stack);
  // The service replicas by compose service: a chart's line then names a container one can look into.
  const replicas = ['person-service-1', 'person-service-2', 'systems-service-1', 'systems-service-2'] as const;
  const names = new Map<string, string>();
  for (const replica of replicas) {
    const id = await stack.instanceIdOf(replica);
    if (id) names.set(id, replica);
  }
  const stop = async (): Promise<void> => {
    await connection.close();
    await stack.down();
  };
  // Ctrl-C, or a `timeout` around the run: the stack goes down with it rather than running on.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      progress(`${signal}: taking the stack down`);
      void stop().then(() => process.exit(130));
    });
  try {
    const soakStart = Date.now();
    const minuteNow = (): number => (Date.now() - soakStart) / 60_000;
    const samples: Sample[] = [];
    const faults: FaultWindow[] = [];
    let running = true;

    const sampling = (async () => {
      while (running) {
        const at = minuteNow();
        samples.push(...(await sampleAll(stack, await connection.get(), names, at)));
        await sleep(Math.max(0, SAMPLE_SECONDS * 1000 - (minuteNow() - at) * 60_000));
      }
    })();
    const faulting = (async () => {
      // A fault every FAULT_EVERY_MINUTES, but never before the previous one's window closed; none in the last
      // minute, so that each ends under load.
      let next = FAULT_EVERY_MINUTES;
      for (let run = 1; next < MINUTES - 1; run++) {
        await sleep(Math.max(0, (next - minuteNow()) * 60_000));
        if (!running) return;
        const from = minuteNow();
        const restarted =
          FAULT === 'rolling' ? await restartAllRolling(stack, minuteNow, run) : await killOne(stack, minuteNow);
        const to = minuteNow() + SETTLE_SECONDS / 60;
        const label = FAULT === 'rolling' ? `rolling restart ${run}` : `${restarted[0]} killed`;
        faults.push({ label, from, to, restarted });
        next = Math.max(next + FAULT_EVERY_MINUTES, to);
      }
    })();
    const known: string[] = [];
    const load = await runLoad(
      { baseUrl: stack.lbUrl, ratePerSecond: RATE, durationMs: MINUTES * 60_000, overwriteIds: PERSONS },
      known,
    );
    running = false;
    await Promise.all([sampling, faulting]);
    const lost = await findLostWrites(stack.lbUrl, load.acknowledged);

    const outcomes = load.outcomes.map((outcome) => ({
      minute: (load.startedAt + outcome.at - soakStart) / 60_000,
      status: outcome.status,
      retryAfter: outcome.retryAfter,
      ms: outcome.ms,
    }));
    const summary = summariseSoak(outcomes, samples, faults, GROWTH_FROM_MINUTE);
    await mkdir(RESULTS_DIR, { recursive: true });
    const charts: Array<[string, Series[], string, string]> = [
      ['soak-rss.svg', seriesOf(samples, 'rss', MIB), 'Resident memory', 'MiB (process RSS)'],
      ['soak-heap.svg', seriesOf(samples, 'heap', MIB), 'Heap in use (Node processes)', 'MiB (heap used)'],
      [
        'soak-heap-live.svg',
        seriesOf(samples, 'heapLive', MIB),
        'Heap in use after each full collection (Node processes)',
        'MiB (live heap)',
      ],
      [
        'soak-heap-total.svg',
        seriesOf(samples, 'heapTotal', MIB),
        'Heap committed (Node processes)',
        'MiB (heap total)',
      ],
      [
        'soak-external.svg',
        seriesOf(samples, 'external', MIB),
        'Memory outside the heap (Node processes)',
        'MiB (external)',
      ],
      ['soak-handles.svg', seriesOf(samples, 'handles'), 'Active handles (Node processes)', 'active handles'],
      ['soak-subscriptions.svg', seriesOf(samples, 'subscriptions'), 'Subscriptions per NATS node', 'subscriptions'],
      ['soak-kv-lag.svg', seriesOf(samples, 'kvLag'), `Replica lag of ${STREAM}`, 'operations behind the leader'],
    ];
    for (const [file, series, what, unit] of charts) {
      const title = `${what} over a ${MINUTES}-minute soak at ${RATE} requests/s`;
      await writeFile(
        join(RESULTS_DIR, file),
        renderSeriesSvg(series, { title, unit, minutes: MINUTES, faults, gapMinutes: (2.5 * SAMPLE_SECONDS) / 60 }),
      );
    }
    const failures = load.outcomes
      .filter((outcome) => outcome.status < 200 || outcome.status >= 300)
      .map((outcome) => ({ ...outcome, minute: (load.startedAt + outcome.at - soakStart) / 60_000 }));
    await writeFile(
      join(RESULTS_DIR, 'soak.json'),
      `${JSON.stringify({ minutes: MINUTES, rate: RATE, fault: FAULT, faultEveryMinutes: FAULT_EVERY_MINUTES, faults, summary, lost, failures, samples }, null, 2)}\n`,
    );
    const report = formatSoakReport({
      heading: `${MINUTES} minutes at ${RATE} requests/s (half reads, half writes overwriting ${PERSONS} persons in turn) through the load balancer; fault: ${faultText}`,
      summary,
      lost: lost.length,
      fromMinute: GROWTH_FROM_MINUTE,
    });
    const failureLines = failures
      .slice(0, 50)
      .map(
        (f) =>
          `  failed ${f.kind} sent at minute ${f.minute.toFixed(2)}: ${f.status}${f.retryAfter ? ' + Retry-After' : ''} after ${f.ms} ms, trace ${f.traceId}`,
      );
    await writeFile(join(RESULTS_DIR, 'soak.txt'), report);
    process.stdout.write(
      [
        report,
        ...(failureLines.length ? ['failed calls (first 50):', ...failureLines] : []),
        `charts: ${charts.map(([file]) => join(RESULTS_DIR, file)).join(', ')} (numbers in soak.json)`,
        `wall time ${((Date.now() - started) / 60_000).toFixed(1)} minutes`,
        '',
      ].join('\n'),
    );
    if (failures.length && process.env.SOAK_KEEP_LOGS !== 'false') {
      // The containers go with the stack: keep what they logged for whoever looks into the failures.
      for (const service of ['gateway-1', 'gateway-2', 'person-service-1', 'person-service-2', ...NATS_NODES] as const)
        await writeFile(join(RESULTS_DIR, `${service}.log`), await stack.logs(service).catch(String));
      progress(`failures: container logs kept in ${RESULTS_DIR}/<service>.log`);
    }
  } finally {
    progress('taking the stack down');
    await stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
