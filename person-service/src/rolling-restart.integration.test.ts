import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { freePort, startChild, startNatsServer, type Child, type TestNatsServer } from '@restbus/infra/testing';
import { STARTUP_DEADLINE_MS, waitForChild } from './testing/mixed-load';

// Issue 33: a rolling restart of the services themselves. Two replicas of person-service answer in one queue group;
// each in turn gets SIGTERM (as `docker compose restart` or a rolling deploy sends it), exits and starts again while
// clients keep calling through the gateway. The queue group is to hand every call over: the replica leaving drains
// its subscriptions (the server stops routing to it, the calls it already has are answered) before it closes its
// connection, so no call is dropped and none waits for the gateway's resend. The programs as users run them
// (`npx tsc -b gateway person-service` builds them). The test reads no clock (issue 45): a call dropped by a leaving
// replica shows as a second copy of it on NATS, which the test counts; the slowest call through the restarts is
// `npm run bench:failover`'s figure.
const PERSON_MAIN = resolve(__dirname, '../dist/main.js');
const GATEWAY_MAIN = resolve(__dirname, '../../gateway/dist/main.js');
const PERSON_API = resolve(__dirname, '../person-api.yml');

const CLIENTS = 6;
const ROUNDS = 2;
// The gateway publishes an unanswered GET or PUT once more (same reply subject) at half its timeout: a call dropped
// by a leaving replica would still succeed, 3 s late. The test tells the two apart by the copies NATS carried.
const GATEWAY_TIMEOUT_MS = 6000;
const CLIENT_TIMEOUT_MS = 15_000;
// Calls made while both replicas answer, and while only one does.
const CALLS_PER_STEP = 100;

let nats: TestNatsServer;
let watcher: NatsConnection | undefined;
const children: Child[] = [];
let base: string;

interface Outcome {
  what: string;
  status: number;
}

async function send(path: string, init: RequestInit = {}): Promise<number> {
  try {
    const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

function startProgram(name: string, main: string, args: string[]): Child {
  const child = startChild(name, process.execPath, [main, ...args, '--log-format', 'json'], resolve(__dirname, '..'));
  children.push(child);
  return child;
}

async function startReplica(name: string): Promise<Child> {
  const replica = startProgram(name, PERSON_MAIN, ['-n', nats.url, '--store', 'jetstream']);
  await waitForChild(replica, () => replica.output().includes('"msg":"answering"'), `${name} answering`);
  return replica;
}

async function stopGracefully(child: Child): Promise<number | null> {
  const exited = new Promise<number | null>((done) => child.process.once('exit', (code) => done(code)));
  child.process.kill('SIGTERM');
  return exited;
}

beforeAll(async () => {
  for (const main of [PERSON_MAIN, GATEWAY_MAIN]) {
    if (!existsSync(main)) throw new Error(`${main} is missing: run npx tsc -b gateway person-service first`);
  }
  nats = await startNatsServer();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const gateway = startProgram('gateway', GATEWAY_MAIN, [
    ...['-r', PERSON_API, '-n', nats.url, '-u', '-p', String(port)],
    ...['--timeout', String(GATEWAY_TIMEOUT_MS)],
  ]);
  await waitForChild(gateway, async () => (await send('/persons?limit=1')) !== 0, 'the gateway answering');
}, STARTUP_DEADLINE_MS * 2);

afterAll(async () => {
  await watcher?.close();
  for (const child of children) child.process.kill('SIGKILL');
  await nats?.dispose();
});

describe('person-service replicas restarted one after another under load', () => {
  it(
    `answer every call of ${CLIENTS} clients (reads and writes) while each replica in turn stops on SIGTERM and ` +
      'starts again, and the leaving replica exits 0',
    async () => {
      const replicas = [await startReplica('person-service-1'), await startReplica('person-service-2')];
      // Every request the gateway publishes (`easer.<method>_<path>`), by its reply subject: a copy sent again
      // (a hedge at half the timeout, or a resend) has the same one.
      watcher = await connect({ servers: nats.url });
      const copies = new Map<string, { subject: string; count: number }>();
      watcher.subscribe('easer.*', {
        callback: (_err, msg) => {
          const seen = copies.get(msg.reply ?? '') ?? { subject: msg.subject, count: 0 };
          seen.count += 1;
          copies.set(msg.reply ?? '', seen);
        },
      });
      await watcher.flush();
      const outcomes: Outcome[] = [];
      let running = true;

      async function client(c: number): Promise<void> {
        for (let n = 0; running; n++) {
          const id = `rr-${c}-${n % 3}`;
          let what: string;
          let status: number;
          if (n % 2 === 0) {
            what = `PUT /persons/${id}`;
            status = await send(`/persons/${id}`, {
              method: 'PUT',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ id, familyName: 'Rolling', givenName: `${c}-${n}` }),
            });
          } else {
            what = n % 4 === 1 ? 'GET /persons?limit=10' : `GET /persons/${id}`;
            status = await send(n % 4 === 1 ? '/persons?limit=10' : `/persons/${id}`);
          }
          outcomes.push({ what, status });
        }
      }

      const load = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
      const callsGoOn = (replica: Child, what: string): Promise<void> => {
        const target = outcomes.length + CALLS_PER_STEP;
        return waitForChild(replica, () => outcomes.length >= target, `${CALLS_PER_STEP} calls ${what}`);
      };
      const exitCodes: Array<number | null> = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (let r = 0; r < replicas.length; r++) {
          await callsGoOn(replicas[r], 'with both replicas');
          exitCodes.push(await stopGracefully(replicas[r]));
          // Calls go on while only the other replica answers.
          await callsGoOn(replicas[1 - r], `with person-service-${2 - r} alone`);
          replicas[r] = await startReplica(`person-service-${r + 1}`);
        }
      }
      await callsGoOn(replicas[0], 'after the restarts');
      running = false;
      await load;
      await watcher.flush();

      const failed = outcomes.filter((outcome) => outcome.status < 200 || outcome.status >= 300);
      const sentTwice = [...copies.values()].filter((copy) => copy.count > 1);
      process.stdout.write(
        `rolling restart of 2 replicas, ${ROUNDS} rounds: ${outcomes.length} calls, ${failed.length} failed, ` +
          `${copies.size} published, ${sentTwice.length} of them more than once\n` +
          failed.map((o) => `  failed ${o.what}: ${o.status}\n`).join(''),
      );
      expect(exitCodes).toEqual(Array(ROUNDS * 2).fill(0));
      expect(failed.map((o) => `${o.what} ${o.status}`)).toEqual([]);
      // No call was dropped and rescued by the gateway's second copy: each went out on NATS once.
      expect(copies.size).toBeGreaterThanOrEqual(outcomes.length);
      expect(sentTwice.map((copy) => `${copy.subject} published ${copy.count} times`)).toEqual([]);
    },
    900_000,
  );
});
