// Replays every example of person-api.yml and systems-api.yml through the real gateway, run with
// `--validateReplies enforce`, against the real person-service and systems-service on a real nats-server: each call
// must get the answer its example writes, and so every reply the services give satisfies its contract.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { startNatsServer, waitFor, type TestNatsServer } from '@restbus/infra/testing';
import { readContractCalls, withGeneratedValues, type ContractCall, type OpenApiDocument } from './contract-calls';

/** A package's folder, as npm installed it (each is a devDependency of e2e). */
const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

const PERSON_API = join(packageDir('@restbus/person-service'), 'person-api.yml');
const SYSTEMS_API = join(packageDir('@restbus/systems-service'), 'systems-api.yml');

const readDocument = (file: string): OpenApiDocument => parse(readFileSync(file, 'utf8')) as OpenApiDocument;

const CONTRACTS = [
  { file: 'person-api.yml', calls: readContractCalls(readDocument(PERSON_API)) },
  { file: 'systems-api.yml', calls: readContractCalls(readDocument(SYSTEMS_API)) },
];

/** A program of ours, started from its package's bin as users start it; its output is kept for the failures. */
interface Program {
  name: string;
  child: ChildProcess;
  output: () => string;
}

function startProgram(name: string, packageName: string, bin: string, args: string[]): Program {
  const child = spawn(process.execPath, [join(packageDir(packageName), 'bin', bin), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output += chunk.toString();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { name, child, output: () => output };
}

/** The JSON log lines a program wrote so far. */
const logLines = (program: Program): Array<Record<string, unknown>> =>
  program
    .output()
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });

/** Waits until a program logs a line that `found` picks, failing with its output when it exits first. */
async function waitForLog<T>(program: Program, found: (line: Record<string, unknown>) => T | undefined): Promise<T> {
  let value: T | undefined;
  await waitFor(
    () => {
      value = logLines(program)
        .map(found)
        .find((picked) => picked !== undefined);
      const { exitCode, signalCode } = program.child;
      if (value === undefined && (exitCode !== null || signalCode !== null)) {
        throw new Error(`${program.name} exited (${exitCode ?? signalCode}):\n${program.output()}`);
      }
      return value !== undefined;
    },
    { what: `the log line ${program.name} was awaited for` },
  );
  return value as T;
}

async function stopProgram(program: Program | undefined): Promise<void> {
  if (!program || program.child.exitCode !== null || program.child.signalCode !== null) return;
  const exited = new Promise((resolve) => program.child.once('exit', resolve));
  program.child.kill('SIGTERM');
  await exited;
}

let nats: TestNatsServer;
let gateway: Program | undefined;
const services: Program[] = [];
let base: string;

beforeAll(async () => {
  nats = await startNatsServer();
  for (const [name, bin] of [
    ['person-service', 'person-service.js'],
    ['systems-service', 'systems-service.js'],
  ] as const) {
    const service = startProgram(name, `@restbus/${name}`, bin, ['-n', nats.url]);
    services.push(service);
    await waitForLog(service, (line) => (line.msg === 'answering' ? true : undefined));
  }
  gateway = startProgram('restbus-gateway', '@restbus/gateway', 'restbus-gateway.js', [
    ...['-r', PERSON_API, SYSTEMS_API],
    ...['-u', '-n', nats.url, '--port', '0', '--validateReplies', 'enforce'],
  ]);
  const port = await waitForLog(gateway, (line) =>
    line.msg === 'gateway listening' && typeof line.port === 'number' ? line.port : undefined,
  );
  base = `http://127.0.0.1:${port}`;
  // Listening is not ready: on a busy machine the gateway's NATS link may come a moment later, and a call before it
  // is answered 503 NATS_UNAVAILABLE. A user's orchestrator waits for /-/ready, and so does this replay.
  await waitFor(async () => (await fetch(`${base}/-/ready`)).ok, { what: 'the gateway ready' });
});

afterAll(async () => {
  await stopProgram(gateway);
  await Promise.all(services.map(stopProgram));
  await nats?.dispose();
});

const title = ({ name, method, path, expected }: ContractCall): string =>
  `${method.toUpperCase()} ${path}, example ${name}, is answered ${expected.status}` +
  (expected.stream ? ' with an event stream' : expected.body === undefined ? ' with no body' : ' as its example says');

/** Sends one call through the gateway and checks the answer against its example. */
async function replay(call: ContractCall): Promise<void> {
  const path = call.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(call.input.path[name])),
  );
  const query = new URLSearchParams(
    Object.entries(call.input.query).map(([name, value]): [string, string] => [name, String(value)]),
  );
  const url = `${base}${path}${query.size > 0 ? `?${query.toString()}` : ''}`;
  const aborter = new AbortController();
  const response = await fetch(url, {
    method: call.method.toUpperCase(),
    signal: aborter.signal,
    ...(call.input.body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(call.input.body) }),
  });
  const { expected } = call;
  if (expected.stream) {
    aborter.abort();
    expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({
      status: Number(expected.status),
      type: expect.stringMatching(/^text\/event-stream/),
    });
    return;
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: compared as the text it is, which no JSON example equals.
  }
  const headers = Object.fromEntries(Object.keys(expected.headers).map((name) => [name, response.headers.get(name)]));
  // A reply that breaks its contract is the gateway's 502 REPLY_INVALID under enforce, its problems in the body.
  expect({ status: response.status, body, headers }).toEqual(
    withGeneratedValues({ status: Number(expected.status), body: expected.body, headers: expected.headers }),
  );
}

describe.each(CONTRACTS)(
  '$file, its examples replayed in order through a gateway that enforces the contract',
  ({ calls }) => {
    it.each(calls.map((call) => [title(call), call] as const))('%s', async (_title, call) => {
      await replay(call);
    });
  },
);

describe('the contracts and the gateway', () => {
  it('replays every operation of both contracts, and each named call of an operation once', () => {
    const operations = CONTRACTS.flatMap(({ file, calls }) => [
      ...new Set(calls.map(({ method, path }) => `${file} ${method} ${path}`)),
    ]);
    expect(operations).toHaveLength(11);
    for (const { calls } of CONTRACTS) {
      const names = calls.map(({ method, path, name }) => `${method} ${path} ${name}`);
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('finds no example in either contract that breaks its schema, and no reply that breaks its contract', async () => {
    const warnings = await waitForLog(gateway!, (line) =>
      line.msg === 'API checked for warnings' ? line.warnings : undefined,
    );
    expect(warnings).toBe(0);
    const violations = logLines(gateway!).filter((line) => /contract|violat/i.test(String(line.msg)));
    expect(violations).toEqual([]);
  });
});
