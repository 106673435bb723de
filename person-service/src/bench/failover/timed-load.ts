// The failover benchmark's load: the cluster tests' mixed load (person-service/src/testing/mixed-load.ts), timed.
// Those tests assert outcomes and read no clock (issue 45); the figures they used to assert (p99 through a failover,
// the election, how long a restart took) are measured here.
import { existsSync } from 'node:fs';
import { connect } from 'nats';
import { resolve } from 'node:path';
import { freePort, startChild, waitUntil, type Child, type TestNatsCluster } from '@restbus/infra/testing';

const PERSON_MAIN = resolve(__dirname, '../../main.js');
const GATEWAY_MAIN = resolve(__dirname, '../../../../gateway/dist/main.js');
const PERSON_API = resolve(__dirname, '../../../person-api.yml');
const CLIENT_TIMEOUT_MS = 30_000;

export interface Answer {
  status: number;
  retryAfter: boolean;
  text: string;
}

export async function send(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  try {
    const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    return { status: response.status, retryAfter: response.headers.has('retry-after'), text: await response.text() };
  } catch {
    return { status: 0, retryAfter: false, text: '' };
  }
}

export interface PersonStack {
  base: string;
  /** What the programs' NATS links did, one line each: "<ms since the stack started> <program>: <message>". */
  linkEvents(): Array<{ at: number; program: string; msg: string }>;
  stop(): void;
}

export interface StackOptions {
  /** Started on a single server (no `serversOf`): its URL. */
  servers: string;
  gatewayTimeoutMs: number;
  /** Starts person-service-1 and -2. */
  replicas?: number;
}

export function programsBuilt(): void {
  for (const main of [PERSON_MAIN, GATEWAY_MAIN]) {
    if (!existsSync(main)) throw new Error(`${main} is missing: run npx tsc -b first`);
  }
}

export function startReplica(name: string, servers: string, into: Child[]): Promise<Child> {
  const child = startChild(
    name,
    process.execPath,
    [PERSON_MAIN, '-n', servers, '--store', 'jetstream', '--log-format', 'json'],
    resolve(__dirname, '../../..'),
  );
  into.push(child);
  return waitUntil(child, async () => child.output().includes('"msg":"answering"'), 300).then(() => child);
}

/** Two person-service replicas and the gateway, as the cluster tests start them; resolves once the gateway answers. */
export async function startPersonStack(options: StackOptions): Promise<PersonStack> {
  programsBuilt();
  const started = performance.now();
  const children: Child[] = [];
  const events: Array<{ at: number; program: string; msg: string }> = [];
  const listen = (child: Child): void => {
    child.process.stdout?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (line.includes('"component":"nats"')) {
          const { msg } = JSON.parse(line) as { msg: string };
          events.push({ at: performance.now() - started, program: child.name, msg });
        }
      }
    });
  };
  for (let i = 1; i <= (options.replicas ?? 2); i++)
    listen(await startReplica(`person-service-${i}`, options.servers, children));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const gateway = startChild(
    'gateway',
    process.execPath,
    [
      GATEWAY_MAIN,
      '-r',
      PERSON_API,
      '-n',
      options.servers,
      '-u',
      '-p',
      String(port),
      '--timeout',
      String(options.gatewayTimeoutMs),
      '--log-format',
      'json',
    ],
    resolve(__dirname, '../../..'),
  );
  children.push(gateway);
  listen(gateway);
  // Without replicas (started later), any HTTP answer (503) says the gateway is up.
  const ready = (status: number): boolean => (options.replicas === 0 ? status !== 0 : status === 200);
  await waitUntil(gateway, async () => ready((await send(base, '/persons?limit=1')).status), 300);
  return {
    base,
    linkEvents: () => [...events],
    stop: () => children.forEach((child) => child.process.kill('SIGKILL')),
  };
}

export interface Outcome {
  kind: 'read' | 'write';
  /** When it was sent, ms after the load started. */
  at: number;
  ms: number;
  status: number;
  retryAfter: boolean;
}

export interface Written {
  values: string[];
  acknowledged: number;
}

export interface TimedLoad {
  readonly outcomes: Outcome[];
  readonly written: Map<string, Written>;
  /** ms since the load started. */
  now(): number;
  stopAfter(ms: number): Promise<void>;
}

/** 8 clients calling in turn without pause, every other call a PUT of one of its own ids, the rest reads. */
export function startTimedLoad(base: string, prefix: string, clients = 8, idsPerClient = 4): TimedLoad {
  const written = new Map<string, Written>();
  const outcomes: Outcome[] = [];
  const started = performance.now();
  let stopAt = Infinity;
  async function client(c: number): Promise<void> {
    for (let n = 0; performance.now() < stopAt; n++) {
      const id = `${prefix}-${c}-${n % idsPerClient}`;
      const entry = written.get(id) ?? { values: [], acknowledged: -1 };
      written.set(id, entry);
      const begun = performance.now();
      const write = n % 2 === 0 || entry.acknowledged < 0;
      let answer: Answer;
      if (write) {
        const givenName = `${c}-${n}`;
        entry.values.push(givenName);
        answer = await send(base, `/persons/${id}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id, familyName: 'Load', givenName }),
        });
        if (answer.status === 200) entry.acknowledged = entry.values.length - 1;
      } else {
        answer = await send(base, n % 4 === 1 ? '/persons?limit=10' : `/persons/${id}`);
      }
      const ms = performance.now() - begun;
      outcomes.push({
        kind: write ? 'write' : 'read',
        at: begun - started,
        ms,
        status: answer.status,
        retryAfter: answer.retryAfter,
      });
    }
  }
  const load = Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  return {
    outcomes,
    written,
    now: () => performance.now() - started,
    async stopAfter(ms) {
      stopAt = performance.now() + ms;
      await load;
    },
  };
}

/** The acknowledged writes not there (asked again for 10 s while a replica's copy may lag). */
export async function findLostWrites(base: string, written: Map<string, Written>): Promise<string[]> {
  const lost: string[] = [];
  for (const [id, entry] of written) {
    if (entry.acknowledged < 0) continue;
    const givenNameOf = (read: Answer): string =>
      read.status === 200 ? (JSON.parse(read.text) as { givenName: string }).givenName : '';
    const isBehind = (read: Answer): boolean => entry.values.indexOf(givenNameOf(read)) < entry.acknowledged;
    let read = await send(base, `/persons/${id}`);
    for (let tries = 0; isBehind(read) && tries < 40; tries++) {
      await new Promise((done) => setTimeout(done, 250));
      read = await send(base, `/persons/${id}`);
    }
    if (isBehind(read)) lost.push(id);
  }
  return lost;
}

export const percentile = (values: number[], p: number): number =>
  values.length === 0
    ? NaN
    : [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

const isOk = (outcome: Outcome): boolean => outcome.status >= 200 && outcome.status < 300;

/** From `faultAt` until the first write sent after it was acknowledged (Infinity: none was). */
export function firstWriteAfter(outcomes: readonly Outcome[], faultAt: number): number {
  return outcomes
    .filter((o) => o.kind === 'write' && isOk(o) && o.at >= faultAt)
    .reduce((least, o) => Math.min(least, o.at + o.ms - faultAt), Infinity);
}

export interface LoadFigures {
  calls: number;
  failed: number;
  /** Failed other than 503 with Retry-After. */
  unhelpful: number;
  lost: number;
  p50: number;
  p99: number;
  longest: number;
}

export function loadFigures(outcomes: readonly Outcome[], lost: readonly string[]): LoadFigures {
  const times = outcomes.map((o) => o.ms);
  const failed = outcomes.filter((o) => !isOk(o));
  return {
    calls: outcomes.length,
    failed: failed.length,
    unhelpful: failed.filter((o) => !(o.status === 503 && o.retryAfter)).length,
    lost: lost.length,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    longest: times.reduce((most, ms) => Math.max(most, ms), 0),
  };
}

/** Until every replica of KV_persons is current (after a fault healed), polled; rejects after `seconds`. */
export async function waitUntilCaughtUp(cluster: TestNatsCluster, seconds = 300): Promise<void> {
  const nc = await connect({ servers: cluster.nodes.map((node) => node.url) });
  try {
    const jsm = await nc.jetstreamManager();
    const deadline = performance.now() + seconds * 1000;
    for (;;) {
      const info = await jsm.streams.info('KV_persons').catch(() => undefined);
      const replicas = info?.cluster?.replicas ?? [];
      if (info?.cluster?.leader && replicas.length === 2 && replicas.every((replica) => replica.current)) return;
      if (performance.now() > deadline) throw new Error(`KV_persons did not catch up within ${seconds} s`);
      await new Promise((done) => setTimeout(done, 200));
    }
  } finally {
    await nc.close();
  }
}
