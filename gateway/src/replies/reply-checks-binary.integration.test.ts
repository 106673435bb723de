import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { connect, headers as natsHeaders, type NatsConnection } from 'nats';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { GOOD_PERSON, PERSONS_API, THINGS_API } from './fault-apis';

// The program as users run it; jest's global setup builds it.
const MAIN = resolve(__dirname, '../../dist/main.js');

/** A reply the fault service sends: status, headers and body, the body sent apart as the gateway asks. */
interface FaultReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

const RATE = { 'X-Rate-Limit': '100', 'content-type': 'application/json' };
const persons = (...items: unknown[]): FaultReply => ({ status: 200, headers: RATE, body: { items } });
const person = (change: Record<string, unknown>, drop?: string): FaultReply => {
  const changed: Record<string, unknown> = { ...GOOD_PERSON, ...change };
  if (drop) delete changed[drop];
  return persons(changed);
};

interface Fault {
  reply: FaultReply;
  path: string;
  operation: string;
  kind: string;
  /** The violation's pointer (the log line), its problem's location (enforce) and Prism's location (report). */
  pointer: string;
  location: string;
  prismLocation: string[];
}

const body = (
  pointer: string,
  reply: FaultReply,
  path = '/persons',
  operation = 'listPersons',
): Omit<Fault, never> => ({
  reply,
  path,
  operation,
  kind: 'body',
  pointer,
  location: `body${pointer}`,
  prismLocation: ['response', 'body', ...pointer.split('/').slice(1)],
});

/** The twelve broken replies of the issue, each with where the gateway must say it is broken. */
const FAULTS: Record<string, Fault> = {
  'a wrong type': body('/items/0/name', person({ name: 42 })),
  'a missing required property': body('/items/0/name', person({}, 'name')),
  'an extra property under additionalProperties: false': body('/items/0/extra', person({ extra: true })),
  'an undeclared status': {
    reply: { ...persons(GOOD_PERSON), status: 203 },
    path: '/persons',
    operation: 'listPersons',
    kind: 'status',
    pointer: 'status',
    location: 'status',
    prismLocation: ['response'],
  },
  'a wrong content type': {
    reply: { status: 200, headers: { 'X-Rate-Limit': '1', 'content-type': 'text/html' }, body: '<p>persons</p>' },
    path: '/persons',
    operation: 'listPersons',
    kind: 'content-type',
    pointer: 'content-type',
    location: 'content-type',
    prismLocation: ['response'],
  },
  'a missing required header': {
    reply: { status: 200, headers: { 'content-type': 'application/json' }, body: { items: [GOOD_PERSON] } },
    path: '/persons',
    operation: 'listPersons',
    kind: 'header',
    pointer: 'header/x-rate-limit',
    location: 'header/x-rate-limit',
    prismLocation: ['response', 'header', 'x-rate-limit'],
  },
  'an enum miss': body('/items/0/status', person({ status: 'gone' })),
  'a format miss': body('/items/0/email', person({ email: 'not an address' })),
  'a bad item deep in an array': body(
    '/items/3/tags/2',
    persons(GOOD_PERSON, GOOD_PERSON, GOOD_PERSON, { ...GOOD_PERSON, tags: ['a', 'b', 7] }),
  ),
  'null where not nullable': body('/items/0/name', person({ name: null })),
  'an OpenAPI 3.1 type array miss': body(
    '/code',
    { status: 200, headers: { 'content-type': 'application/json' }, body: { code: 'seven' } },
    '/things',
    'listThings',
  ),
  'a oneOf matching none': body('/items/0/pet', person({ pet: 5 })),
};
const GOOD: FaultReply = persons(GOOD_PERSON, { ...GOOD_PERSON, pet: 'dog Rex', nickname: 'A' });

let dir: string;
let nats: TestNatsServer;
let service: NatsConnection;

/**
 * The fault service: a plain NATS responder on the subjects the gateway sends GET /persons and GET /things to,
 * answering with the reply the request's `?fault=` names, its body apart from its head as restbus services send it.
 */
async function startFaultService(url: string): Promise<NatsConnection> {
  const nc = await connect({ servers: url });
  const answer = (subject: string): void => {
    nc.subscribe(subject, {
      callback: (_err, msg) => {
        const message = JSON.parse(new TextDecoder().decode(msg.data)) as {
          request: { parameters: { query: Record<string, string> } };
        };
        const name = message.request.parameters.query.fault;
        const reply = name === undefined ? GOOD : FAULTS[name].reply;
        const head = natsHeaders();
        head.set('Restbus-Reply-Head', JSON.stringify({ status: reply.status ?? 200, headers: reply.headers ?? {} }));
        const payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        msg.respond(new TextEncoder().encode(payload), { headers: head });
      },
    });
  };
  answer('easer.get_/persons');
  answer('easer.get_/things');
  await nc.flush();
  return nc;
}

interface Running {
  url: string;
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
}

/** `restbus-gateway -r persons.json -r things.json -u <extra>` on port 0, once it listens and its NATS link is up. */
async function startGateway(extra: string[]): Promise<Running> {
  const args = [MAIN, '-r', join(dir, 'persons.json'), '-r', join(dir, 'things.json'), '-u', '-n', nats.url];
  const child = spawn(process.execPath, [...args, '-p', '0', '--log-format', 'json', ...extra]);
  const lines: Array<Record<string, unknown>> = [];
  const reader = createInterface({ input: child.stdout! });
  const listening = new Promise<number>((done, fail) => {
    reader.on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      lines.push(entry);
      if (entry.msg === 'gateway listening') done(Number(entry.port));
    });
    child.once('exit', () => fail(new Error('the gateway stopped before it listened')));
  });
  const url = `http://127.0.0.1:${await listening}`;
  for (let tries = 0; ; tries++) {
    const ready = (await (await fetch(`${url}/-/ready`)).json()) as { nats?: string };
    if (ready.nats === 'connected') break;
    if (tries === 100) throw new Error('the gateway did not connect to NATS within 5 s');
    await new Promise((done) => setTimeout(done, 50));
  }
  return { url, child, lines };
}

async function stop(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null) return;
  const exited = new Promise((done) => running.child.once('exit', done));
  running.child.kill('SIGTERM');
  await exited;
}

async function call(running: Running, path: string, fault?: string) {
  const response = await fetch(`${running.url}${path}${fault ? `?fault=${encodeURIComponent(fault)}` : ''}`);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function metric(running: Running, operation: string, kind: string): Promise<number> {
  const text = await (await fetch(`${running.url}/-/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`restbus_reply_violations_total{operation="${operation}",kind="${kind}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** The log lines of violations, waited for: the gateway writes its log asynchronously. */
async function violationLines(running: Running, count: number): Promise<Array<Record<string, unknown>>> {
  const found = () => running.lines.filter((line) => line.msg === 'reply violates the API description');
  for (let tries = 0; found().length < count && tries < 100; tries++) await new Promise((done) => setTimeout(done, 20));
  return found();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-reply-faults-'));
  await writeFile(join(dir, 'persons.json'), JSON.stringify(PERSONS_API));
  await writeFile(join(dir, 'things.json'), JSON.stringify(THINGS_API));
  nats = await startNatsServer();
  service = await startFaultService(nats.url);
});
afterAll(async () => {
  await service?.close();
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('restbus-gateway --validateReplies report', () => {
  let gateway: Running | undefined;
  beforeAll(async () => {
    gateway = await startGateway(['--validateReplies', 'report']);
  });
  afterAll(() => stop(gateway));

  it('passes a good reply untouched, without sl-violations', async () => {
    const seen = await call(gateway!, '/persons');
    expect(seen.status).toBe(200);
    expect(seen.headers.get('sl-violations')).toBeNull();
    expect(seen.text).toBe(JSON.stringify(GOOD.body));
  });

  it.each(Object.keys(FAULTS))(
    'answers %s as the service sent it, with sl-violations, a log line and the metric',
    async (name) => {
      const fault = FAULTS[name];
      const before = await metric(gateway!, fault.operation, fault.kind);
      const logged = (await violationLines(gateway!, 0)).length;
      const seen = await call(gateway!, fault.path, name);
      expect(seen.status).toBe(fault.reply.status ?? 200);
      const sent = typeof fault.reply.body === 'string' ? fault.reply.body : JSON.stringify(fault.reply.body);
      expect(seen.text).toBe(sent);
      const violations = JSON.parse(seen.headers.get('sl-violations') ?? '[]') as unknown[];
      expect(violations).toEqual([
        expect.objectContaining({ location: fault.prismLocation, severity: 'Error', message: expect.any(String) }),
      ]);
      const lines = (await violationLines(gateway!, logged + 1)).slice(logged);
      expect(lines).toEqual([
        expect.objectContaining({
          operation: fault.operation,
          subject: `easer.get_${fault.path}`,
          kind: fault.kind,
          pointer: fault.pointer,
          expected: expect.any(String),
          actual: expect.any(String),
        }),
      ]);
      expect(await metric(gateway!, fault.operation, fault.kind)).toBe(before + 1);
    },
  );
});

describe('restbus-gateway --validateReplies enforce', () => {
  let gateway: Running | undefined;
  beforeAll(async () => {
    gateway = await startGateway(['--validate-replies', 'enforce']);
  });
  afterAll(() => stop(gateway));

  it('passes a good reply untouched', async () => {
    const seen = await call(gateway!, '/persons');
    expect(seen).toMatchObject({ status: 200, text: JSON.stringify(GOOD.body) });
    expect(seen.headers.get('sl-violations')).toBeNull();
  });

  it.each(Object.keys(FAULTS))('refuses %s: 502 REPLY_INVALID with the problem where it is', async (name) => {
    const fault = FAULTS[name];
    // The log is the whole run's: this call's line is the one after those already there (written after the answer).
    const logged = (await violationLines(gateway!, 0)).length;
    const seen = await call(gateway!, fault.path, name);
    expect(seen.status).toBe(502);
    expect(JSON.parse(seen.text)).toEqual({
      error: `the reply of ${fault.operation} does not match the API description`,
      code: 'REPLY_INVALID',
      problems: [{ location: fault.location, message: expect.any(String) }],
    });
    const lines = (await violationLines(gateway!, logged + 1)).slice(logged);
    expect(lines).toEqual([expect.objectContaining({ operation: fault.operation, pointer: fault.pointer })]);
  });
});

describe('restbus-gateway without --validateReplies', () => {
  let gateway: Running | undefined;
  beforeAll(async () => {
    gateway = await startGateway([]);
  });
  afterAll(() => stop(gateway));

  it('passes a broken reply untouched and says nothing of it', async () => {
    const seen = await call(gateway!, '/persons', 'a wrong type');
    expect(seen).toMatchObject({ status: 200, text: JSON.stringify(FAULTS['a wrong type'].reply.body) });
    expect(seen.headers.get('sl-violations')).toBeNull();
    expect(await metric(gateway!, 'listPersons', 'body')).toBe(0);
    expect(gateway!.lines.filter((line) => line.msg === 'reply violates the API description')).toEqual([]);
  });
});
