import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connect, type NatsConnection } from 'nats';
import { freePort, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { GATEWAY_MAIN } from './run-gateway';

type LogLine = Record<string, unknown> & { level: number; msg: string };

const INFO = 30;
const WARN = 40;
const BODY_LIMIT = 1024;

const pet = { id: 1, name: 'Rex' };
const document = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'pets', version: '1' },
  paths: {
    '/pets': {
      get: { responses: { '200': { description: 'pets', content: { 'application/json': { example: [pet] } } } } },
      post: {
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
            },
          },
        },
        responses: { '201': { description: 'added', content: { 'application/json': { example: pet } } } },
      },
    },
    '/slow': { get: { responses: { '200': { description: 'late' } } } },
    '/garbled': { get: { responses: { '200': { description: 'unreadable' } } } },
  },
});

interface Running {
  url: string;
  child: ChildProcess;
  /** Every line the gateway wrote to stdout so far, parsed. */
  lines: LogLine[];
}

/** `restbus-gateway -u -m --validate --log-format json` on port 0, as users run it; resolves once it listens. */
async function startGateway(dir: string, natsUrl: string): Promise<Running> {
  const args = [
    ...['-r', join(dir, 'pets.json'), '-u', '-m', '--validate', '-n', natsUrl, '--topicPrefix', 'quiet'],
    ...['--timeout', '300', '--bodyLimit', String(BODY_LIMIT), '-p', '0', '--log-format', 'json'],
  ];
  const child = spawn(process.execPath, [GATEWAY_MAIN, ...args]);
  const lines: LogLine[] = [];
  return new Promise((started, failed) => {
    createInterface({ input: child.stdout }).on('line', (text) => {
      const line = JSON.parse(text) as LogLine;
      lines.push(line);
      if (line.msg === 'gateway listening') started({ url: `http://127.0.0.1:${String(line.port)}`, child, lines });
    });
    child.once('exit', (code) => failed(new Error(`the gateway exited with ${code} before it listened`)));
  });
}

async function stop(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null) return;
  const exited = new Promise((done) => running.child.once('exit', done));
  running.child.kill('SIGTERM');
  await exited;
}

/**
 * The lines the gateway logged about one request besides its access line (`request`), once there are some: the
 * answer can reach the client before the line reaches this process.
 */
async function linesAbout(running: Running, response: Response): Promise<LogLine[]> {
  const reqId = response.headers.get('x-request-id');
  const about = (): LogLine[] => running.lines.filter((line) => line.reqId === reqId && line.msg !== 'request');
  for (let tries = 0; about().length === 0 && tries < 100; tries++) await new Promise((done) => setTimeout(done, 20));
  return about();
}

const postPet = (running: Running, body: string): Promise<Response> =>
  fetch(`${running.url}/pets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** A line a person reads: the level, the code, and never a stack. */
const oneLine = (level: number, code: string, route: string, method: string) => [
  expect.objectContaining({ level, code, route, method }),
];

let dir: string;
let nats: TestNatsServer;
let gateway: Running | undefined;
let client: NatsConnection | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-quiet-logs-'));
  await writeFile(join(dir, 'pets.json'), document);
  nats = await startNatsServer();
  gateway = await startGateway(dir, nats.url);
  // A service that takes /slow and never answers, and one that answers /garbled with what is no reply.
  client = await connect({ servers: nats.url });
  client.subscribe('quiet.get_/slow');
  client.subscribe('quiet.get_/garbled', { callback: (_err, message) => message.respond('not a reply') });
  await client.flush();
  for (let tries = 0; (await fetch(`${gateway.url}/-/ready`)).status !== 200; tries++) {
    if (tries === 100) throw new Error('the gateway did not connect to NATS within 5 s');
    await new Promise((done) => setTimeout(done, 50));
  }
});
afterAll(async () => {
  await client?.close();
  await stop(gateway);
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('restbus-gateway -u -m --validate --log-format json', () => {
  it('logs a client’s malformed JSON as one info line with its code, method, route and request id', async () => {
    const response = await postPet(gateway!, '{"name": ');
    expect(response.status).toBe(400);
    const lines = await linesAbout(gateway!, response);
    expect(lines).toEqual(oneLine(INFO, 'REQUEST_INVALID', '/pets', 'POST'));
    expect(lines[0]).not.toHaveProperty('err');
  });

  it('logs a body over the limit as one info line, without a stack', async () => {
    const response = await postPet(gateway!, JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) }));
    expect(response.status).toBe(413);
    const lines = await linesAbout(gateway!, response);
    expect(lines).toEqual(oneLine(INFO, 'BODY_TOO_LARGE', '/pets', 'POST'));
    expect(lines[0]).not.toHaveProperty('err');
  });

  it('logs a method the path does not describe as one info line with the path’s template', async () => {
    const response = await fetch(`${gateway!.url}/pets`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    const lines = await linesAbout(gateway!, response);
    expect(lines).toEqual(oneLine(INFO, 'METHOD_NOT_ALLOWED', '/pets', 'DELETE'));
    expect(lines[0]).not.toHaveProperty('err');
  });

  it('logs the mock answering a read in place of a missing service as one info line', async () => {
    const response = await fetch(`${gateway!.url}/pets`);
    expect([response.status, response.headers.get('x-restbus-mocked')]).toEqual([200, 'true']);
    const lines = await linesAbout(gateway!, response);
    expect(lines).toEqual(oneLine(INFO, 'NO_RESPONDER', '/pets', 'GET'));
    expect(lines[0].msg).toMatch(/the mock answers in its place/);
    expect(lines[0]).not.toHaveProperty('err');
  });

  it('logs a write no service took as one warning with its code, without a stack', async () => {
    const response = await postPet(gateway!, JSON.stringify({ name: 'Tom' }));
    expect(response.status).toBe(503);
    const lines = await linesAbout(gateway!, response);
    expect(lines).toEqual(oneLine(WARN, 'NO_RESPONDER', '/pets', 'POST'));
    expect(lines[0]).not.toHaveProperty('err');
  });

  it('logs a service that does not answer in time as one warning, without a stack', async () => {
    const response = await fetch(`${gateway!.url}/slow`);
    expect(response.status).toBe(504);
    const lines = await linesAbout(gateway!, response);
    expect(lines).toEqual(oneLine(WARN, 'UPSTREAM_TIMEOUT', '/slow', 'GET'));
    expect(lines[0]).not.toHaveProperty('err');
  });

  it('logs a reply that is none as one warning, without a stack', async () => {
    const response = await fetch(`${gateway!.url}/garbled`);
    expect(response.status).toBe(502);
    const lines = await linesAbout(gateway!, response);
    expect(lines).toEqual(oneLine(WARN, 'BAD_REPLY', '/garbled', 'GET'));
    expect(lines[0]).not.toHaveProperty('err');
  });

  it('has printed no stack for any of these expected failures', () => {
    const withStack = gateway!.lines.filter((line) => 'err' in line || JSON.stringify(line).includes('"stack"'));
    expect(withStack).toEqual([]);
  });
});

describe('restbus-gateway -u -m while NATS is out of reach', () => {
  let cut: Running | undefined;
  beforeAll(async () => {
    cut = await startGateway(dir, `nats://127.0.0.1:${await freePort()}`);
  });
  afterAll(() => stop(cut));

  it('logs a write it cannot forward as one warning with NATS_UNAVAILABLE, and no line with a stack', async () => {
    const response = await postPet(cut!, JSON.stringify({ name: 'Tom' }));
    expect(response.status).toBe(503);
    const lines = await linesAbout(cut!, response);
    expect(lines).toEqual(oneLine(WARN, 'NATS_UNAVAILABLE', '/pets', 'POST'));
    const withStack = cut!.lines.filter((line) => 'err' in line || JSON.stringify(line).includes('"stack"'));
    expect(withStack).toEqual([]);
  });
});
