// The streams bench's clients: `node clients-main.js <sse|ws|nats-ws|socket-io> <url> <natsUrl> <count>` opens `count`
// clients of one system and publishes the bench events on NATS itself, so that the send time and the receive time
// are read from the same clock. It reports `{ connected }`, then runs the phases the bench sends (PhaseCommand) and
// answers each with a PhaseResult. Only the streams bench runs this file.
import { connect } from 'nats';
import { DEFAULT_PAD, encodeBenchEvent, SUBJECT, type BenchEvent, type ClientSet } from './bench-event';
import { createLatencyHistogram, type LatencyHistogram } from './latency-histogram';
import { openNatsWsClients } from './open-nats-ws-clients';
import { openSocketIoClients } from './open-socket-io-clients';
import { openSseClients } from './open-sse-clients';
import { openWsClients } from './open-ws-clients';
import type { PhaseCommand, PhaseResult, StallSetting } from './phase-result';

const [kind, url, natsUrl, countText] = process.argv.slice(2);
const count = Number(countText);
const SLOTS = 1 << 16;
const STALL_MS = 3000;
const PAD = 'x'.repeat(DEFAULT_PAD);

/** How many clients got each event in flight, by sequence number modulo SLOTS. */
const reached = new Uint16Array(SLOTS);
const perClient = new Uint32Array(count);
let nextSeq = 0;
/** Events below this belong to an earlier phase and are ignored. */
let firstSeq = 0;
let deliveries = 0;
let allDeliveries = 0;
let others = 0;
let inFlight = 0;
let measuring = false;
let histogram: LatencyHistogram = createLatencyHistogram();
let onComplete = (): void => undefined;
let lastComplete = 0;

const send = (message: unknown): void => {
  process.send?.(message);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function receive(client: number, event: BenchEvent): void {
  const now = performance.now();
  perClient[client]++;
  if (event.seq < firstSeq) return;
  allDeliveries++;
  if (measuring) deliveries++;
  histogram.record(now - event.sentAt);
  if (++reached[event.seq % SLOTS] === count) {
    inFlight--;
    lastComplete = now;
    onComplete();
  }
}

/** The stalled client of a phase: what it read (once it reads again), the `gap`s it got and the events they count. */
interface StalledClient {
  events: number;
  gaps: number;
  missed: number;
  clients: ClientSet;
}

async function openStalledClient(setting: StallSetting): Promise<StalledClient> {
  const stalled: Omit<StalledClient, 'clients'> = { events: 0, gaps: 0, missed: 0 };
  const clients = await openSseClients(
    setting.url,
    1,
    () => stalled.events++,
    (_client, event, data) => {
      if (event !== 'gap') return;
      stalled.gaps++;
      stalled.missed += (JSON.parse(data) as { missed: number }).missed;
    },
  );
  clients.stall(0);
  return Object.assign(stalled, { clients });
}

async function main(): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  const publish = (): void => {
    const seq = nextSeq++;
    reached[seq % SLOTS] = 0;
    inFlight++;
    nc.publish(SUBJECT, encodeBenchEvent(seq, performance.now(), PAD));
  };
  const other = (): void => {
    others++;
  };
  let clients: ClientSet;
  if (kind === 'sse') clients = await openSseClients(url, count, receive, other);
  else if (kind === 'ws') clients = await openWsClients(url, count, receive, other);
  else if (kind === 'nats-ws') clients = await openNatsWsClients(url, count, receive);
  else if (kind === 'socket-io') clients = await openSocketIoClients(url, count, receive);
  else throw new Error(`unknown clients ${kind}`);
  send({ connected: count });
  // The bench is gone (interrupted): so are its clients.
  process.once('disconnect', () => process.exit(0));

  /** Publishes one event every 50 ms until every client has got one: then every subscription is in place. */
  async function probe(): Promise<void> {
    perClient.fill(0);
    const deadline = Date.now() + 20_000;
    while (perClient.some((n) => n === 0)) {
      if (Date.now() > deadline)
        throw new Error(`${perClient.filter((n) => n === 0).length} of ${count} clients got no event in 20 s`);
      publish();
      await sleep(50);
    }
    await sleep(200); // the probe's last events arrive
  }

  async function run(command: Exclude<PhaseCommand, { cmd: 'probe' }>): Promise<PhaseResult> {
    const stall = command.cmd === 'rate' ? command.stall : undefined;
    const stalled = stall ? await openStalledClient(stall) : undefined;
    const heavy = stall ? encodeBenchEvent(0, 0, 'x'.repeat(stall.padBytes)) : '';
    firstSeq = nextSeq;
    inFlight = 0;
    deliveries = allDeliveries = 0;
    others = 0;
    histogram = createLatencyHistogram();
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    const end = start + command.seconds * 1000;
    lastComplete = start;
    measuring = true;
    let stalledOut = false;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((done) => {
      const watchdog = setInterval(() => {
        const now = performance.now();
        if (command.cmd === 'saturate' && now - lastComplete > STALL_MS) stalledOut = true;
        if (now >= end || stalledOut) {
          clearInterval(watchdog);
          clearInterval(timer);
          measuring = false;
          onComplete = () => undefined;
          done();
        }
      }, 5);
      if (command.cmd === 'saturate') {
        onComplete = () => {
          if (measuring) publish();
        };
        for (let i = 0; i < command.window; i++) publish();
      } else {
        let sent = 0;
        timer = setInterval(() => {
          const due = Math.floor(((performance.now() - start) / 1000) * command.rate);
          for (; sent < due; sent++) {
            publish();
            if (stall) nc.publish(stall.subject, heavy);
          }
        }, 5);
      }
    });
    const elapsed = (performance.now() - start) / 1000;
    const published = nextSeq - firstSeq;
    // The events still on their way arrive (or are given up on) before the next phase starts.
    const drainBy = performance.now() + STALL_MS;
    while (inFlight > 0 && performance.now() < drainBy) await sleep(20);
    const cpu = process.cpuUsage(cpuBefore);
    let stalledClient: PhaseResult['stalledClient'];
    if (stalled) {
      stalled.clients.resume(0);
      await sleep(2000);
      stalledClient = { events: stalled.events, gaps: stalled.gaps, missed: stalled.missed };
      await stalled.clients.close();
    }
    return {
      deliveriesPerSecond: deliveries / elapsed,
      deliveries: allDeliveries,
      eventsPerSecond: published / elapsed,
      p50: histogram.quantile(0.5),
      p99: histogram.quantile(0.99),
      max: histogram.max(),
      incomplete: inFlight,
      others,
      stalled: stalledOut,
      clientCpu: ((cpu.user + cpu.system) / 1000 / (performance.now() - start)) * 100,
      stalledClient,
    };
  }

  process.on('message', (command: PhaseCommand | { cmd: 'close' }) => {
    const answer = async (): Promise<unknown> => {
      if (command.cmd === 'close') {
        await clients.close();
        await nc.close();
        process.exit(0);
      }
      if (command.cmd === 'probe') {
        await probe();
        return { probed: true };
      }
      return { result: await run(command) };
    };
    answer().then(send, (err: unknown) => {
      process.stderr.write(`clients: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`clients (${kind}): ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
