import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';

// The program as users run it; jest's global setup builds it.
const MAIN = resolve(__dirname, '../../dist/main.js');

const pet = { id: 1, name: 'Rex' };
const answer = (status: string): Record<string, unknown> => ({
  responses: {
    [status]: { description: 'pet', content: { 'application/json': { example: pet } } },
  },
});
/** One path with every method: which of them the mock answers in place of a missing service is what is tested. */
const document = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'pets', version: '1' },
  paths: {
    '/pets': {
      get: answer('200'),
      options: answer('200'),
      post: answer('201'),
      put: answer('200'),
      patch: answer('200'),
      delete: answer('200'),
    },
  },
});

let dir: string;
let nats: TestNatsServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-hybrid-writes-'));
  await writeFile(join(dir, 'pets.json'), document);
  nats = await startNatsServer();
});
afterAll(async () => {
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

interface Running {
  url: string;
  child: ChildProcess;
}

/** Starts `restbus-gateway -r pets.json -u -m` on port 0 and resolves once it listens (and, if asked, is ready). */
async function startHybrid(extra: string[], env: Record<string, string>, ready: boolean): Promise<Running> {
  const args = [MAIN, '-r', join(dir, 'pets.json'), '-u', '-m', '-p', '0', '--log-format', 'json', ...extra];
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env } });
  let url: string | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg === 'gateway listening') {
      url = `http://127.0.0.1:${entry.port}`;
      break;
    }
  }
  if (!url) throw new Error('the gateway stopped before it listened');
  // It listens before its NATS link is up; with -m it is ready at once, so wait for the link itself.
  const linked = async (): Promise<boolean> =>
    ((await (await fetch(`${url}/-/ready`)).json()) as { nats?: string }).nats === 'connected';
  for (let tries = 0; ready && !(await linked()); tries++) {
    if (tries === 100) throw new Error('the gateway did not connect to NATS within 5 s');
    await new Promise((done) => setTimeout(done, 50));
  }
  return { url, child };
}

async function stop(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null) return;
  const exited = new Promise((done) => running.child.once('exit', done));
  running.child.kill('SIGTERM');
  await exited;
}

interface Seen {
  status: number;
  mocked: string | null;
  body: unknown;
}

async function call(running: Running, method: string): Promise<Seen> {
  const response = await fetch(`${running.url}/pets`, {
    method,
    ...(['POST', 'PUT', 'PATCH'].includes(method)
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(pet) }
      : {}),
  });
  const text = await response.text();
  return { status: response.status, mocked: response.headers.get('x-restbus-mocked'), body: text && JSON.parse(text) };
}

const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];

describe('restbus-gateway -u -m while no service answers (no responders)', () => {
  let gateway: Running | undefined;
  beforeAll(async () => {
    gateway = await startHybrid(['-n', nats.url], {}, true);
  });
  afterAll(() => stop(gateway));

  it('mocks the safe methods GET, HEAD and OPTIONS, marked as mocked', async () => {
    expect(await call(gateway!, 'GET')).toEqual({ status: 200, mocked: 'true', body: pet });
    expect(await call(gateway!, 'HEAD')).toEqual({ status: 200, mocked: 'true', body: '' });
    expect(await call(gateway!, 'OPTIONS')).toEqual({ status: 200, mocked: 'true', body: pet });
  });

  it.each(WRITES)('answers %s 503 NO_RESPONDER and never confirms a write that did not happen', async (method) => {
    const seen = await call(gateway!, method);
    expect(seen).toMatchObject({ status: 503, mocked: null, body: { code: 'NO_RESPONDER' } });
    expect((seen.body as { error: string }).error).toMatch(/no service answers on easer\./);
  });
});

describe('restbus-gateway -u -m while NATS is out of reach', () => {
  let gateway: Running | undefined;
  beforeAll(async () => {
    gateway = await startHybrid(['-n', `nats://127.0.0.1:${await freePort()}`], {}, false);
  });
  afterAll(() => stop(gateway));

  it('mocks GET and answers every write 503 NATS_UNAVAILABLE', async () => {
    expect(await call(gateway!, 'GET')).toEqual({ status: 200, mocked: 'true', body: pet });
    for (const method of WRITES) {
      expect(await call(gateway!, method)).toMatchObject({
        status: 503,
        mocked: null,
        body: { code: 'NATS_UNAVAILABLE' },
      });
    }
  });
});

describe.each([
  ['--mockWrites', ['--mockWrites'], {}],
  ['--mock-writes', ['--mock-writes'], {}],
  ['GATEWAY_MOCK_WRITES=true', [], { GATEWAY_MOCK_WRITES: 'true' }],
])('restbus-gateway -u -m %s while no service answers', (_name, flags, env) => {
  let gateway: Running | undefined;
  beforeAll(async () => {
    gateway = await startHybrid(['-n', nats.url, ...flags], env, true);
  });
  afterAll(() => stop(gateway));

  it('mocks the writes too, as asked, marked as mocked', async () => {
    expect(await call(gateway!, 'POST')).toEqual({ status: 201, mocked: 'true', body: pet });
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      expect(await call(gateway!, method)).toEqual({ status: 200, mocked: 'true', body: pet });
    }
  });
});
