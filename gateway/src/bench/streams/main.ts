// `npm run bench:streams`: events delivered per second to N clients of one subject, and delivery latency, through
// the gateway's SSE streams (and its WebSocket streams), beside nats-server's own WebSocket listener with as many
// nats.ws clients and beside a bare socket.io broadcast, measured in the same run on this machine; the gateway's RSS
// per open stream; and a stalled client among the others, which must be given a gap at its bound while the others'
// delivery p99 stays under issue 32's goal (50 ms) or twice a bare Node SSE broadcast's on this machine just before
// (the figure the stream-bounds test used to assert). `BENCH_ONLY=stall` runs that last phase alone.
import { fork, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, killChildrenOnExit, median, startChild, waitUntil, type Child } from '@restbus/infra/testing';
import { collectGarbage } from './collect-garbage';
import type { PhaseCommand, PhaseResult } from './phase-result';
import { cpuSecondsOf, rssOf } from './process-stats';
import { startNatsWithWebSocket, type WebSocketNats } from './start-nats-with-websocket';
import { startOpenResponder } from './start-open-responder';
import { HEAVY_PATH, HEAVY_SUBJECT, STREAM_PATH, writeStreamApi } from './write-stream-api';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
/** Events in flight in the saturating phase: the next is published when one has reached every client. */
const WINDOW = Number(process.env.BENCH_WINDOW ?? 16);
/** Events per second of the latency phase: a rate every system keeps up with at 1,000 clients here. */
const RATE = Number(process.env.BENCH_RATE ?? 20);
const STALL = process.env.BENCH_STALL !== '0';
const STALL_SECONDS = Number(process.env.BENCH_STALL_SECONDS ?? 10);
/**
 * Event size of the stalled client's stream. On loopback (64 KB segments) the kernel's buffers take 1.5 to 4 MB for
 * a client that reads nothing before the gateway's own queue, and its bound, even start: 128-byte events at RATE
 * would take tens of minutes to fill them, and big events sent to all the clients would measure something else.
 */
const STALL_PAD = Number(process.env.BENCH_STALL_PAD ?? 65536);
/** Only the stalled-client phase (and its bare reference), not the rounds of the four systems. */
const ONLY_STALL = process.env.BENCH_ONLY === 'stall';
/** Issue 32's goal for the others' delivery p99 with a stalled client among them, in ms. */
const STALL_P99_GOAL_MS = 50;

const GATEWAY = 'restbus-gateway, SSE';
const GATEWAY_WS = 'restbus-gateway, WebSocket';
const NATS_WS = 'nats-server WebSocket, nats.ws';
const SOCKET_IO = 'socket.io 4.8 broadcast';

const GATEWAY_MAIN = resolve(__dirname, '../../main.js');
const CLIENTS_MAIN = join(__dirname, 'clients-main.js');
const BROADCASTER_MAIN = join(__dirname, 'socket-io-broadcaster-main.js');
const BARE_SSE_MAIN = join(__dirname, 'bare-sse-broadcaster-main.js');

/** A system under test, running: where its clients connect, and the processes that serve them. */
interface Serving {
  url: string;
  /** Processes whose CPU serves the clients (nats-server included: every system gets its events from it). */
  pids: number[];
  /** The process whose RSS grows with the open streams. */
  memoryPid: number;
  /** Its inspector's port, when it is a Node process: a full GC precedes each reading of its RSS. */
  inspectorPort?: number;
  stop(): Promise<void>;
}

interface System {
  name: string;
  clients: 'sse' | 'ws' | 'nats-ws' | 'socket-io';
  start(): Promise<Serving>;
}

interface Measured {
  saturate: PhaseResult;
  rate: PhaseResult;
  /** Server CPU during the saturating phase (its tail included), % of one core. */
  serverCpu: number;
  /** Server CPU per delivery in that phase, µs: less sensitive than throughput to how busy the machine is. */
  cpuPerDelivery: number;
  rssBefore: number;
  rssWith: number;
}

/** The clients' process, forked; `ask` sends one command and resolves with its answer. */
interface Clients {
  process: ChildProcess;
  ask<T>(command: PhaseCommand | { cmd: 'close' }): Promise<T>;
}

function forkClients(kind: System['clients'], url: string, natsUrl: string, count = CLIENTS): Promise<Clients> {
  return new Promise((resolvePromise, reject) => {
    const child = fork(CLIENTS_MAIN, [kind, url, natsUrl, String(count)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const failed = (code: number | null): void => reject(new Error(`the ${kind} clients exited with ${code}`));
    child.once('exit', failed);
    child.once('message', () => {
      child.off('exit', failed);
      resolvePromise({
        process: child,
        ask: <T>(command: PhaseCommand | { cmd: 'close' }) =>
          new Promise<T>((answered, fail) => {
            const exited = (code: number | null): void => fail(new Error(`the ${kind} clients exited with ${code}`));
            child.once('exit', exited);
            child.once('message', (message: T) => {
              child.off('exit', exited);
              answered(message);
            });
            child.send(command);
          }),
      });
    });
  });
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function cpuOf(pids: number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) total += await cpuSecondsOf(pid);
  return total;
}

const settle = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

async function rssAfterGc(server: Serving): Promise<number> {
  if (server.inspectorPort !== undefined) await collectGarbage(server.inspectorPort);
  return rssOf(server.memoryPid);
}

/** The gateway binary as users run it, forwarding (-u), serving the bench API's stream. */
async function startGatewayBinary(nats: WebSocketNats, api: string, extra: string[] = []): Promise<Serving> {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const child = startChild(
    'restbus-gateway',
    process.execPath,
    [inspect(inspectorPort), GATEWAY_MAIN, '-r', api, '-u', '-n', nats.url, '-p', String(port), ...extra],
    process.cwd(),
  );
  await waitUntil(child, async () => {
    const ready = (await (await fetch(`http://127.0.0.1:${port}/-/ready`)).json()) as { nats?: string };
    return ready.nats === 'connected';
  });
  return serving(child, `http://127.0.0.1:${port}${STREAM_PATH}`, nats, inspectorPort);
}

const inspect = (port: number): string => `--inspect=127.0.0.1:${port}`;

function serving(child: Child, url: string, nats: WebSocketNats, inspectorPort: number): Serving {
  return {
    url,
    pids: [child.process.pid!, nats.child.process.pid!],
    memoryPid: child.process.pid!,
    inspectorPort,
    stop: () => stopProcess(child.process),
  };
}

async function measure(system: System, nats: WebSocketNats): Promise<Measured> {
  const server = await system.start();
  try {
    await settle(500);
    const rssBefore = await rssAfterGc(server);
    const clients = await forkClients(system.clients, server.url, nats.url);
    try {
      await clients.ask({ cmd: 'probe' });
      // With the streams open and a few events through, before any load leaves garbage behind.
      await settle(500);
      const rssWith = await rssAfterGc(server);
      // Warm-up: the JIT, the sockets' buffers.
      await clients.ask({ cmd: 'saturate', seconds: 1, window: WINDOW });
      const cpuBefore = await cpuOf(server.pids);
      const started = performance.now();
      const saturate = (
        await clients.ask<{ result: PhaseResult }>({ cmd: 'saturate', seconds: SECONDS, window: WINDOW })
      ).result;
      const cpu = (await cpuOf(server.pids)) - cpuBefore;
      const serverCpu = (cpu / ((performance.now() - started) / 1000)) * 100;
      const cpuPerDelivery = (cpu / saturate.deliveries) * 1e6;
      const rate = (await clients.ask<{ result: PhaseResult }>({ cmd: 'rate', seconds: SECONDS, rate: RATE })).result;
      return { saturate, rate, serverCpu, cpuPerDelivery, rssBefore, rssWith };
    } finally {
      if (clients.process.connected) clients.process.send({ cmd: 'close' });
      await Promise.race([new Promise((done) => clients.process.once('exit', done)), settle(5000)]);
      await stopProcess(clients.process, 'SIGKILL');
    }
  } finally {
    await server.stop();
  }
}

interface Stalled {
  result: PhaseResult;
  /** The same phase (without the stalled client) on a bare Node SSE broadcast, just before. */
  bare: PhaseResult;
  /** The gateway's /-/metrics after the phase. */
  gaps: number;
  cuts: number;
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/-/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}

/**
 * One stalled client among CLIENTS on the gateway: CLIENTS - 1 read the bench stream at RATE events/s for
 * STALL_SECONDS, one reads nothing of a stream of big events at the same rate.
 */
async function measureStall(nats: WebSocketNats, api: string, dir: string): Promise<Stalled> {
  const bare = await measureBareSse(nats, dir);
  const server = await startGatewayBinary(nats, api);
  const base = new URL(server.url).origin;
  try {
    const clients = await forkClients('sse', server.url, nats.url, CLIENTS - 1);
    try {
      await clients.ask({ cmd: 'probe' });
      const stall = { url: `${base}${HEAVY_PATH}`, subject: HEAVY_SUBJECT, padBytes: STALL_PAD };
      const command: PhaseCommand = { cmd: 'rate', seconds: STALL_SECONDS, rate: RATE, stall };
      const { result } = await clients.ask<{ result: PhaseResult }>(command);
      return {
        result,
        bare,
        gaps: await metric(base, 'restbus_gateway_stream_gaps_total'),
        cuts: await metric(base, 'restbus_gateway_stream_cuts_total'),
      };
    } finally {
      await stopProcess(clients.process, 'SIGKILL');
    }
  } finally {
    await server.stop();
  }
}

/** CLIENTS - 1 SSE clients of a bare Node broadcast, at RATE events/s for STALL_SECONDS: the floor of this machine. */
async function measureBareSse(nats: WebSocketNats, dir: string): Promise<PhaseResult> {
  const port = await freePort();
  const child = startChild('bare SSE broadcaster', process.execPath, [BARE_SSE_MAIN, nats.url, String(port)], dir);
  try {
    await waitUntil(child, async () => (await fetch(`http://127.0.0.1:${port}/ready`)).ok);
    const clients = await forkClients('sse', `http://127.0.0.1:${port}/events`, nats.url, CLIENTS - 1);
    try {
      await clients.ask({ cmd: 'probe' });
      return (await clients.ask<{ result: PhaseResult }>({ cmd: 'rate', seconds: STALL_SECONDS, rate: RATE })).result;
    } finally {
      await stopProcess(clients.process, 'SIGKILL');
    }
  } finally {
    await stopProcess(child.process);
  }
}

const fmt = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const kb = (bytes: number): string => fmt(bytes / 1024, 1);

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-streams-'));
  killChildrenOnExit(() => rmSync(dir, { recursive: true, force: true }));
  const api = join(dir, 'streams.json');
  await writeStreamApi(api);
  const nats = await startNatsWithWebSocket(dir);
  const responder = await startOpenResponder(nats.url, 'easer.>');
  const systems: System[] = [
    { name: GATEWAY, clients: 'sse', start: () => startGatewayBinary(nats, api) },
    {
      name: GATEWAY_WS,
      clients: 'ws',
      start: async () => {
        const serving = await startGatewayBinary(nats, api);
        return { ...serving, url: serving.url.replace(/^http/, 'ws') };
      },
    },
    {
      name: NATS_WS,
      clients: 'nats-ws',
      start: async () => ({
        url: nats.wsUrl,
        pids: [nats.child.process.pid!],
        memoryPid: nats.child.process.pid!,
        stop: async () => undefined,
      }),
    },
    {
      name: SOCKET_IO,
      clients: 'socket-io',
      start: async () => {
        const [port, inspectorPort] = [await freePort(), await freePort()];
        const args = [inspect(inspectorPort), BROADCASTER_MAIN, nats.url, String(port)];
        const child = startChild('socket.io broadcaster', process.execPath, args, dir);
        await waitUntil(child, async () => (await fetch(`http://127.0.0.1:${port}/`)).ok);
        return serving(child, `http://127.0.0.1:${port}`, nats, inspectorPort);
      },
    },
  ];
  const results = new Map<string, Measured[]>(systems.map((system) => [system.name, []]));
  try {
    if (ONLY_STALL) {
      const stall = await measureStall(nats, api, dir);
      process.stdout.write(`${stallLines(stall).join('\n')}\n`);
      return;
    }
    for (let round = 1; round <= ROUNDS; round++) {
      for (const system of round % 2 ? systems : [...systems].reverse()) {
        process.stderr.write(`round ${round}/${ROUNDS}: ${system.name}\n`);
        results.get(system.name)!.push(await measure(system, nats));
      }
    }
    const stall = STALL ? await measureStall(nats, api, dir) : undefined;
    const runs = (name: string): Measured[] => results.get(name)!;
    const med = (name: string, pick: (m: Measured) => number): number => median(runs(name).map(pick));
    const ratio = (name: string, reference: string): number =>
      median(
        runs(name).map((m, i) => m.saturate.deliveriesPerSecond / runs(reference)[i].saturate.deliveriesPerSecond),
      );
    const perStream = (m: Measured): number => (m.rssWith - m.rssBefore) / CLIENTS;
    // What serving costs, less sensitive than throughput to how much of the machine other work leaves.
    const lines = [
      `Load average (1 min) at the start ${fmt(loadBefore)}, at the end ${fmt(loadavg()[0])} on ${availableParallelism()} cores.`,
      `${CLIENTS} clients on one subject, all in one process apart from the servers', which also publishes the events ` +
        `(about 128 bytes of JSON each, carrying their send time) on NATS. Medians of ${ROUNDS} rounds, the systems ` +
        "one after the other, every other round in reverse order; a ratio is the median of the rounds' ratios.",
      '',
      `As fast as delivered: ${WINDOW} events in flight, the next published when one has reached every client; ${SECONDS} s ` +
        'after 1 s of warm-up. Server CPU counts nats-server and the serving process, in % of one core, and per delivery.',
      '',
      '| system | deliveries/s | events/s | p50 ms | p99 ms | vs nats-server | vs socket.io | server CPU % | server CPU µs per delivery | clients CPU % |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...systems.map(
        ({ name }) =>
          `| ${name} | ${fmt(
            med(name, (m) => m.saturate.deliveriesPerSecond),
            0,
          )} | ${fmt(
            med(name, (m) => m.saturate.eventsPerSecond),
            0,
          )} ` +
          `| ${fmt(med(name, (m) => m.saturate.p50))} | ${fmt(med(name, (m) => m.saturate.p99))} | ${fmt(ratio(name, NATS_WS))}x ` +
          `| ${fmt(ratio(name, SOCKET_IO))}x | ${fmt(
            med(name, (m) => m.serverCpu),
            0,
          )} | ${fmt(med(name, (m) => m.cpuPerDelivery))} ` +
          `| ${fmt(
            med(name, (m) => m.saturate.clientCpu),
            0,
          )} |`,
      ),
      '',
      `At a fixed ${RATE} events/s (${RATE * CLIENTS} deliveries/s), ${SECONDS} s:`,
      '',
      '| system | deliveries/s | p50 ms | p99 ms | max ms | events short of a client |',
      '| --- | --- | --- | --- | --- | --- |',
      ...systems.map(
        ({ name }) =>
          `| ${name} | ${fmt(
            med(name, (m) => m.rate.deliveriesPerSecond),
            0,
          )} | ${fmt(med(name, (m) => m.rate.p50))} ` +
          `| ${fmt(med(name, (m) => m.rate.p99))} | ${fmt(med(name, (m) => m.rate.max))} | ${runs(name)
            .map((m) => m.rate.incomplete + m.saturate.incomplete)
            .join(', ')} |`,
      ),
      '',
      `Memory of the serving process with ${CLIENTS} open streams (connections) minus with none, per stream:`,
      '',
      '| system | RSS with none MB | RSS with them MB | per stream KB |',
      '| --- | --- | --- | --- |',
      ...systems.map(
        ({ name }) =>
          `| ${name} | ${fmt(med(name, (m) => m.rssBefore) / 1024 / 1024, 1)} | ${fmt(med(name, (m) => m.rssWith) / 1024 / 1024, 1)} | ${kb(med(name, perStream))} |`,
      ),
      '',
      '| goal | measured | rounds | goal | met |',
      '| --- | --- | --- | --- | --- |',
      goalLine('delivered events/s vs nats-server', ratio(GATEWAY, NATS_WS), roundRatios(GATEWAY, NATS_WS), 0.5),
      goalLine('delivered events/s vs socket.io', ratio(GATEWAY, SOCKET_IO), roundRatios(GATEWAY, SOCKET_IO), 2),
      `| gateway RSS per open stream | ${kb(med(GATEWAY, perStream))} KB | ${runs(GATEWAY)
        .map((m) => kb(perStream(m)))
        .join(', ')} | < 20 KB | ${med(GATEWAY, perStream) < 20 * 1024 ? 'yes' : 'no'} |`,
    ];
    if (stall) lines.push('', ...stallLines(stall));
    process.stdout.write(`${lines.join('\n')}\n`);

    function roundRatios(name: string, reference: string): number[] {
      return runs(name).map((m, i) => m.saturate.deliveriesPerSecond / runs(reference)[i].saturate.deliveriesPerSecond);
    }
  } finally {
    await responder.close();
  }
}

/** The stalled-client phase: its figures, and its verdicts against issue 32's bounds. */
function stallLines({ result, bare, gaps, cuts }: Stalled): string[] {
  const late = result.stalledClient;
  const p99Bound = Math.max(STALL_P99_GOAL_MS, 2 * bare.p99);
  const gapped = (late?.gaps ?? 0) >= 1 && gaps >= 1 && cuts === 0 && result.incomplete === 0;
  const verdict = (pass: boolean): string => (pass ? 'PASS' : 'OVER ITS BOUND');
  return [
    `A stalled client among ${CLIENTS} SSE clients of the gateway (default bound: 1,000 events or 1 MiB, then ` +
      `\`gap\`): ${CLIENTS - 1} read the bench stream at ${RATE} events/s for ${STALL_SECONDS} s, one reads nothing of a ` +
      `stream of ${fmt((STALL_PAD + 48) / 1024, 0)} KB events at the same rate. The ${CLIENTS - 1} others' delivery ` +
      `p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms, max ${fmt(result.max)} ms, ${result.incomplete} events short of one of them. ` +
      `Reading again, the stalled client got ${late?.events} events and ${late?.gaps} gap events saying it missed ${late?.missed}; ` +
      `the gateway's metrics: ${gaps} gaps, ${cuts} cuts.`,
    `A bare Node SSE broadcast to as many clients at the same rate just before: p50 ${fmt(bare.p50)} ms, ` +
      `p99 ${fmt(bare.p99)} ms, max ${fmt(bare.max)} ms, ${bare.incomplete} events short of one of them.`,
    '',
    '| bound | measured | bound | verdict |',
    '| --- | --- | --- | --- |',
    `| the others' delivery p99 with a stalled client, under issue 32's ${STALL_P99_GOAL_MS} ms or twice a bare broadcast's p99 ` +
      `| ${fmt(result.p99)} ms | < ${fmt(p99Bound)} ms | ${verdict(result.p99 < p99Bound)} |`,
    `| the stalled client gap-flagged (not cut), nothing short of the others | ${late?.gaps ?? 0} gap events, ${cuts} cuts, ` +
      `${result.incomplete} short | >= 1, 0, 0 | ${verdict(gapped)} |`,
  ];
}

function goalLine(what: string, measured: number, rounds: number[], limit: number): string {
  return `| ${what} | ${fmt(measured)}x | ${rounds.map((r) => fmt(r)).join(', ')} | >= ${fmt(limit)}x | ${measured >= limit ? 'yes' : 'no'} |`;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
