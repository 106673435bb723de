import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { createRequestMessage, startNatsServer, waitFor, type TestNatsServer } from '../testing';
import { encodeMessage } from '../wire/codec';
import type { ResponseMessage } from '../wire/types';

// Jest replaces the process' 'unhandledRejection' listeners while a test runs, so the guard is tested where it
// matters: in a service process of its own, built from infra's dist (the test run builds it first).
const infraDist = resolve(__dirname, '..', '..', 'dist', 'index.js');

const serviceSource = (natsUrl: string): string => `
const { createExecutive } = require(${JSON.stringify(infraDist)});
const executive = createExecutive({
  name: 'careless-service',
  version: '0.0.0',
  description: 'leaves rejections behind',
  argv: ['-n', ${JSON.stringify(natsUrl)}, '--handlerTimeout', '60000', '--log-format', 'json'],
  env: {},
  startups: [
    (context) => {
      // The systems-service bug: a throw inside a .then callback that nobody catches.
      context.register({ method: 'post', uri: '/careless' }, (_data, cb) => {
        Promise.resolve('x').then((value) => cb(null, { status: 201, body: encodeURIComponent(value + '\\ud800') }));
      });
      context.register({ method: 'get', uri: '/careless' }, (_data, cb) => cb(null, { status: 200, body: 'alive' }));
    },
  ],
});
executive.start().then(() => process.stdout.write('READY\\n'));
`;

let server: TestNatsServer;
let nc: NatsConnection;
let folder: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  folder = await mkdtemp(join(tmpdir(), 'restbus-guard-'));
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await nc?.close();
  await server?.dispose();
  if (folder) await rm(folder, { recursive: true, force: true });
});

async function startCarelessService(): Promise<{ child: ChildProcess; output: () => string }> {
  const file = join(folder, 'careless-service.js');
  await writeFile(file, serviceSource(server.url));
  const started = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  started.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((ready, failed) => {
    started.stdout!.on('data', () => output.includes('READY') && ready());
    started.once('exit', (code) => failed(new Error(`the service exited with ${code}: ${output}`)));
  });
  return { child: started, output: () => output };
}

async function call(method: 'get' | 'post'): Promise<ResponseMessage> {
  const message = encodeMessage(createRequestMessage({ method, uri: '/careless' }));
  return (await nc.request(`easer.${method}_/careless`, message, { timeout: 5000 })).json<ResponseMessage>();
}

describe('the guard around handler code', () => {
  it('fails a request whose handler leaves a rejection unhandled at once with 500, and the process goes on serving', async () => {
    const service = await startCarelessService();
    child = service.child;
    // The handler deadline is a minute: only the guard can answer within the call's five seconds.
    expect(await call('post')).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
    expect(await call('post')).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
    expect(await call('get')).toMatchObject({ status: 200, body: 'alive' });
    expect(child.exitCode).toBeNull();
    // The log line is written apart from the reply (pino's stream): it may reach the pipe after the calls' answers.
    const said = (): boolean => service.output().includes('the handler left a rejection unhandled');
    await waitFor(said, { what: 'the log line about the unhandled rejection' }).catch(() => undefined);
    expect(service.output()).toContain('the handler left a rejection unhandled');
  });
});
