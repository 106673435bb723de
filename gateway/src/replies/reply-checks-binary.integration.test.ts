import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { connect, headers as natsHeaders, type NatsConnection } from 'nats';
import { createSeededRandom, recordHostileCounts, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import {
  createFreezingReply,
  createHostileReplies,
  FORGED_VIOLATIONS,
  type HostileReply,
} from '../__tests__/hostile-replies';
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
/** The replies `?hostile=N` asks the fault service for, sent as they are; `?hostile=freeze`: createFreezingReply. */
const hostile: HostileReply[] = [];
const freezing = createFreezingReply();
/** How many freezing replies the fault service has sent. */
let frozen = 0;

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
        const { fault: name, hostile: which } = message.request.parameters.query;
        if (which !== undefined) {
          const chosen = which === 'freeze' ? freezing : hostile[Number(which)];
          const head = natsHeaders();
          for (const [key, value] of Object.entries(chosen.headers)) head.set(key, value);
          msg.respond(chosen.payload, { headers: head });
          if (which === 'freeze') frozen += 1;
          return;
        }
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

describe('restbus-gateway --validateReplies against hostile replies', () => {
  let report: Running | undefined;
  let enforce: Running | undefined;
  beforeAll(async () => {
    hostile.push(...createHostileReplies(createSeededRandom(4402), 64));
    [report, enforce] = await Promise.all([
      startGateway(['--validateReplies', 'report']),
      startGateway(['--validateReplies', 'enforce']),
    ]);
  });
  afterAll(() => Promise.all([stop(report), stop(enforce)]));

  type FindingKind = 'crashes' | 'uncheckedPasses' | 'forgedHeaders' | 'unboundedProblems' | 'falseRefusals';

  /** What is wrong with one answer to a hostile reply (none when the gateway did its part). */
  function judge(reply: HostileReply, mode: 'report' | 'enforce', seen: Awaited<ReturnType<typeof call>>) {
    const found: Array<{ kind: FindingKind; what: string }> = [];
    const said = seen.headers.get('sl-violations');
    if (said === FORGED_VIOLATIONS || said?.includes('forged by the service'))
      found.push({ kind: 'forgedHeaders', what: said });
    if (seen.status >= 500 && seen.status !== 502) found.push({ kind: 'crashes', what: `${seen.status} ${seen.text}` });
    if (reply.valid) {
      if (seen.status !== 200 || (said !== null && said !== FORGED_VIOLATIONS)) {
        found.push({ kind: 'falseRefusals', what: `valid answered ${seen.status} with sl-violations ${said}` });
      }
    } else if (mode === 'enforce') {
      const answer = seen.status === 502 ? (JSON.parse(seen.text) as { code?: string; problems?: unknown[] }) : {};
      if (answer.code !== 'REPLY_INVALID') found.push({ kind: 'uncheckedPasses', what: `answered ${seen.status}` });
      if ((answer.problems?.length ?? 0) > 100)
        found.push({ kind: 'unboundedProblems', what: `${answer.problems?.length}` });
    } else {
      // Prism's cut of a long list starts so; a whole one is JSON.
      const flagged =
        said !== null &&
        (said.startsWith('Too many violations! [') ||
          (JSON.parse(said) as Array<{ severity: string }>).some((violation) => violation.severity === 'Error'));
      if (!flagged) {
        found.push({ kind: 'uncheckedPasses', what: `answered ${seen.status} with sl-violations ${said}` });
      }
    }
    return found.map((finding) => ({ ...finding, what: `${mode} ${reply.kind}: ${finding.what}` }));
  }

  it('refuses or flags every hostile reply, and passes no sl-violations of the service', async () => {
    const findings: ReturnType<typeof judge> = [];
    for (const [mode, gateway] of [
      ['report', report!],
      ['enforce', enforce!],
    ] as const) {
      for (const [index, reply] of hostile.entries()) {
        const seen = await call(gateway, `${reply.path}?hostile=${index}`).catch((err: unknown) => err);
        if (seen instanceof Error) findings.push({ kind: 'crashes', what: `${mode} ${reply.kind}: ${seen.message}` });
        else findings.push(...judge(reply, mode, seen as Awaited<ReturnType<typeof call>>));
      }
      if (gateway.child.exitCode !== null) findings.push({ kind: 'crashes', what: `${mode}: the gateway stopped` });
    }
    const count = (kind: (typeof findings)[number]['kind']): number => findings.filter((f) => f.kind === kind).length;
    recordHostileCounts('gateway reply checks', {
      tried: { replies: hostile.length * 2 },
      found: {
        crashes: count('crashes'),
        uncheckedPasses: count('uncheckedPasses'),
        forgedHeaders: count('forgedHeaders'),
        unboundedProblems: count('unboundedProblems'),
        falseRefusals: count('falseRefusals'),
      },
    });
    expect(new Set(hostile.map((reply) => reply.kind)).size).toBe(8);
    expect(findings).toEqual([]);
  });

  it('answers another client while it checks replies of 20,000 oneOf misses each, whose first problem only it lists', async () => {
    frozen = 0;
    const calls = [0, 1, 2].map(() => call(enforce!, '/persons?hostile=freeze'));
    for (let tries = 0; frozen < calls.length && tries < 3000; tries++)
      await new Promise((done) => setTimeout(done, 10));
    expect(frozen).toBe(calls.length);
    // A generous deadline: the loop is free within milliseconds; held, it was 7.8 s a reply, 23 s for the three.
    let timer: NodeJS.Timeout | undefined;
    const other = await Promise.race([
      call(enforce!, '/persons').then((seen) => seen.status),
      new Promise((done) => (timer = setTimeout(() => done('no answer within 15 s'), 15_000))),
    ]);
    clearTimeout(timer);
    expect(other).toBe(200);
    for (const seen of await Promise.all(calls)) {
      expect(seen.status).toBe(502);
      expect((JSON.parse(seen.text) as { problems: unknown[] }).problems).toEqual([
        { location: 'body/items/0/id', message: expect.any(String) },
      ]);
    }
  });
});
