// `npm run bench:soak`: the cluster stack at a fixed mixed rate for SOAK_MINUTES (30 for a note), a random NATS node
// killed and started again every SOAK_FAULT_EVERY minutes, every process sampled every SOAK_SAMPLE_SECONDS: memory,
// heap, handles, NATS subscriptions and KV lag, drawn over time as SVG charts beside a JSON of the numbers.
import '../../setup-env';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, RequestStrategy, type NatsConnection } from 'nats';
import { findMissing, runLoad } from '../../cluster-load';
import { NATS_NODES, startClusterStack, type ClusterStack, type NatsNode } from '../../cluster-stack';
import { REPO_ROOT } from '../../compose-stack';
import { parseMemUsage, readMetric, type Sample } from './read-samples';
import { renderSeriesSvg, type Series } from './render-series-svg';
import { summariseSoak, type FaultWindow, type SampledMetric } from './summarise-soak';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const RATE = Number(process.env.SOAK_RATE ?? 40);
const FAULT_EVERY_MINUTES = Number(process.env.SOAK_FAULT_EVERY ?? 5);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 15);
// How long a killed node stays down, and how long after it is healthy again the cluster counts as settling.
const DOWN_SECONDS = 20;
const SETTLE_SECONDS = 30;
const STREAM = 'KV_persons';
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? join(REPO_ROOT, 'bench-results');

const progress = (message: string): boolean => process.stderr.write(`${message}\n`);
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const MIB = 1024 * 1024;

interface ServiceStats {
  name: string;
  endpoints?: Array<{ data?: { heapUsed?: number; handles?: number } }>;
}
interface Varz {
  subscriptions?: number;
}
interface Jsz {
  account_details?: Array<{
    stream_detail?: Array<{
      name: string;
      cluster?: { leader?: string; replicas?: Array<{ name: string; lag?: number }> };
    }>;
  }>;
}

/** What the services say of themselves over NATS ($SRV.STATS): heap and handles, where they report them. */
async function readServiceStats(
  nc: NatsConnection | undefined,
): Promise<Map<string, { heap?: number; handles?: number }>> {
  const found = new Map<string, { heap?: number; handles?: number }>();
  if (!nc) return found;
  try {
    const stats = await nc.services.client({ strategy: RequestStrategy.Timer, maxWait: 2000 }).stats();
    const answers: Array<{ name: string; id: string; heap?: number; handles?: number }> = [];
    for await (const stat of stats) {
      const data = (stat as unknown as ServiceStats).endpoints?.find((endpoint) => endpoint.data)?.data;
      answers.push({ name: stat.name, id: stat.id, heap: data?.heapUsed, handles: data?.handles });
    }
    // The replicas of a service numbered by their instance id, which a process keeps for its life: the same
    // number names the same process in every sample (the soak restarts NATS nodes, not services).
    answers.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    answers.forEach((answer, index) => {
      const n = answers.slice(0, index).filter((other) => other.name === answer.name).length + 1;
      found.set(`${answer.name} #${n}`, { heap: answer.heap, handles: answer.handles });
    });
  } catch {
    // NATS away for a moment (a fault): this sample goes without them.
  }
  return found;
}

async function sampleAll(stack: ClusterStack, nc: NatsConnection | undefined, minute: number): Promise<Sample[]> {
  const samples = new Map<string, Sample>();
  const of = (process: string): Sample => {
    let sample = samples.get(process);
    if (!sample) samples.set(process, (sample = { minute, process }));
    return sample;
  };
  for (const [service, usage] of await stack.memoryOf()) of(service).rss = parseMemUsage(usage);
  for (const gateway of ['gateway-1', 'gateway-2'] as const) {
    const metrics = await stack.metricsOf(gateway).catch(() => '');
    of(gateway).heap = readMetric(metrics, 'restbus_gateway_nodejs_heap_size_used_bytes');
    of(gateway).handles = readMetric(metrics, 'restbus_gateway_nodejs_active_handles_total');
  }
  for (const node of NATS_NODES) {
    const varz = (await stack.monitorOf(node, '/varz').catch(() => undefined)) as Varz | undefined;
    if (varz?.subscriptions !== undefined) of(node).subscriptions = varz.subscriptions;
    const jsz = (await stack.monitorOf(node, '/jsz?streams=true').catch(() => undefined)) as Jsz | undefined;
    const cluster = jsz?.account_details?.flatMap((a) => a.stream_detail ?? []).find((s) => s.name === STREAM)?.cluster;
    if (cluster)
      of(node).kvLag = cluster.leader === node ? 0 : (cluster.replicas?.find((r) => r.name === node)?.lag ?? 0);
  }
  for (const [name, stats] of await readServiceStats(nc)) Object.assign(of(name), stats);
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

async function main(): Promise<void> {
  const started = Date.now();
  progress(`starting the cluster stack for a ${MINUTES}-minute soak at ${RATE} requests/s`);
  const stack = await startClusterStack();
  let nc: NatsConnection | undefined;
  const stop = async (): Promise<void> => {
    await nc?.close().catch(() => undefined);
    await stack.down();
  };
  process.once('SIGINT', () => {
    progress('interrupted: taking the stack down');
    void stop().then(() => process.exit(130));
  });
  try {
    nc = await connect({ servers: await Promise.all(NATS_NODES.map((node) => stack.natsUrl(node))) });
    const soakStart = Date.now();
    const minuteNow = (): number => (Date.now() - soakStart) / 60_000;
    const samples: Sample[] = [];
    const faults: FaultWindow[] = [];
    let running = true;

    const sampling = (async () => {
      while (running) {
        const at = minuteNow();
        samples.push(...(await sampleAll(stack, nc, at)));
        await sleep(Math.max(0, SAMPLE_SECONDS * 1000 - (minuteNow() - at) * 60_000));
      }
    })();
    const faulting = (async () => {
      for (let next = FAULT_EVERY_MINUTES; next < MINUTES - 1; next += FAULT_EVERY_MINUTES) {
        await sleep(Math.max(0, (next - minuteNow()) * 60_000));
        if (!running) return;
        const node: NatsNode = NATS_NODES[Math.floor(Math.random() * NATS_NODES.length)];
        const from = minuteNow();
        progress(`minute ${from.toFixed(1)}: killing ${node}`);
        await stack.kill(node);
        await sleep(DOWN_SECONDS * 1000);
        await stack.start(node);
        const to = minuteNow() + SETTLE_SECONDS / 60;
        faults.push({ label: `${node} killed`, from, to });
        progress(`minute ${minuteNow().toFixed(1)}: ${node} healthy again`);
      }
    })();
    const known: string[] = [];
    const load = await runLoad({ baseUrl: stack.lbUrl, ratePerSecond: RATE, durationMs: MINUTES * 60_000 }, known);
    running = false;
    await Promise.all([sampling, faulting]);
    const lost = await findMissing(stack.lbUrl, known);

    const outcomes = load.outcomes.map((outcome) => ({
      minute: (load.startedAt + outcome.at - soakStart) / 60_000,
      status: outcome.status,
      retryAfter: outcome.retryAfter,
    }));
    const summary = summariseSoak(outcomes, samples, faults);
    await mkdir(RESULTS_DIR, { recursive: true });
    const charts: Array<[string, Series[], string]> = [
      ['soak-rss.svg', seriesOf(samples, 'rss', MIB), 'MiB (container memory)'],
      ['soak-heap.svg', seriesOf(samples, 'heap', MIB), 'MiB (heap in use)'],
      ['soak-handles.svg', seriesOf(samples, 'handles'), 'active handles'],
      ['soak-subscriptions.svg', seriesOf(samples, 'subscriptions'), 'subscriptions'],
      ['soak-kv-lag.svg', seriesOf(samples, 'kvLag'), `operations behind the leader of ${STREAM}`],
    ];
    for (const [file, series, unit] of charts) {
      const title = `${unit} over a ${MINUTES}-minute soak at ${RATE} requests/s`;
      await writeFile(join(RESULTS_DIR, file), renderSeriesSvg(series, { title, unit, minutes: MINUTES, faults }));
    }
    await writeFile(
      join(RESULTS_DIR, 'soak.json'),
      `${JSON.stringify({ minutes: MINUTES, rate: RATE, faults, summary, lost, samples }, null, 2)}\n`,
    );
    const growth = summary.growth
      .filter((row) => row.metric !== 'subscriptions' || row.start > 0)
      .map(
        (row) =>
          `  ${row.process.padEnd(18)} ${row.metric.padEnd(13)} ${row.start.toFixed(0).padStart(12)} → ${row.end
            .toFixed(0)
            .padStart(
              12,
            )}  ${row.percent >= 0 ? '+' : ''}${row.percent.toFixed(1)} %${Math.abs(row.percent) >= 10 ? '  <- 10 % or more' : ''}`,
      );
    process.stdout.write(
      [
        `${MINUTES} minutes at ${RATE} requests/s (half reads, half writes) through the load balancer; a random NATS node killed every ${FAULT_EVERY_MINUTES} minutes for ${DOWN_SECONDS} s:`,
        ...faults.map(
          (fault) => `  ${fault.label} at minute ${fault.from.toFixed(1)}, settled by ${fault.to.toFixed(1)}`,
        ),
        `requests ${summary.requests}, failed ${summary.errors}: outside the fault windows ${summary.errorsOutsideFaults}; in them, other than 503 + Retry-After: ${summary.faultErrorsWithoutRetryAfter}`,
        `acknowledged writes lost: ${lost.length}`,
        `growth from minute 5 to the end (a minute's median at each end):`,
        ...growth,
        `charts: ${charts.map(([file]) => join(RESULTS_DIR, file)).join(', ')} (numbers in soak.json)`,
        `wall time ${((Date.now() - started) / 60_000).toFixed(1)} minutes`,
        '',
      ].join('\n'),
    );
  } finally {
    progress('taking the stack down');
    await stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
