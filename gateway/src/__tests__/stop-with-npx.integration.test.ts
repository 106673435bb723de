import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { waitFor } from '@restbus/infra/testing';

const ROOT = resolve(__dirname, '../../..');
const API = join(ROOT, 'person-service/person-api.yml');
const CRM = join(ROOT, 'examples/crm-api');
const BINS = {
  'restbus-gateway': join(ROOT, 'gateway/bin/restbus-gateway.js'),
  'restbus-mock': join(ROOT, 'mock-server/bin/restbus-mock.js'),
};

let dir: string;
/** Every program's own pid, then what started it, for the cleanup of a run where one outlived the other. */
const started = new Set<number>();
const starters = new Set<ChildProcess>();

beforeAll(async () => {
  for (const main of ['gateway/dist/main.js', 'mock-server/dist/main.js']) {
    if (!existsSync(join(ROOT, main))) throw new Error(`${main} is missing: run npm run build before these tests`);
  }
  // A folder where the programs are installed as npm installs them: bins linked under node_modules/.bin.
  dir = await mkdtemp(join(tmpdir(), 'restbus-npx-'));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'npx-stop', version: '1.0.0', private: true }));
  await mkdir(join(dir, 'node_modules/.bin'), { recursive: true });
  for (const [name, bin] of Object.entries(BINS)) await symlink(bin, join(dir, 'node_modules/.bin', name));
});
afterAll(async () => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  for (const child of starters) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** This environment without what npm set for the test run itself: as a person's shell has it. */
function shellEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}

interface Running {
  /** What was started: npx, or the shell. */
  child: ChildProcess;
  /** The program's own pid and port. */
  pid: number;
  port: number;
}

/** Starts `command` in the folder and resolves with the program's pid and port, read from its JSON log lines. */
async function start(command: string, args: string[]): Promise<Running> {
  // In a process group of its own, as a terminal starts a command: Ctrl-C signals the whole group.
  const child = spawn(command, args, { cwd: dir, env: shellEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  starters.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // The pid comes in a JSON log line, the port in the gateway's `gateway listening` line or the mock server's
  // `Express server listening` line, in either order (pino writes asynchronously beside console.log).
  let pid: number | undefined;
  let port: number | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    const listening = /^Express server listening on port (\d+)$/.exec(line);
    if (listening) port = Number(listening[1]);
    else if (line.startsWith('{')) {
      const entry = JSON.parse(line) as { msg?: string; port?: number; pid?: number };
      pid ??= entry.pid;
      if (pid !== undefined) started.add(pid);
      if (entry.msg === 'gateway listening') port = entry.port;
    }
    if (pid !== undefined && port !== undefined) return { child, pid, port };
  }
  throw new Error(`${command} ${args.join(' ')} ended before it listened: ${stderr}`);
}

/** Whether the process runs: an exited one waiting for init to reap it (a zombie, state Z on Linux) does not. */
const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync('/proc')) return true;
  const stat = readFileSafe(`/proc/${pid}/stat`);
  return stat !== undefined && !/^\d+ \(.*\) Z/.test(stat);
};

function readFileSafe(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

/**
 * Resolves once nothing listens on the port and the program is gone. The deadline is ten times the 3 s a stop may
 * take on a quiet machine, so that a busy one never trips it: what is asserted is that the program stops, not how fast.
 */
const released = (running: Running): Promise<void> =>
  waitFor(async () => !isAlive(running.pid) && !(await accepts(running.port)), {
    what: `the stop of process ${running.pid} and the release of port ${running.port}`,
    timeoutMs: 30_000,
    everyMs: 100,
  });

const gatewayArgs = ['-r', API, '-p', '0', '--log-format', 'json'];
const mockArgs = ['--project', CRM, '--port', '0', '--log-format', 'json', '--no-watch'];

describe('a program started through npx stops with it', () => {
  it.each([
    ['restbus-gateway', gatewayArgs],
    ['restbus-mock', mockArgs],
  ] as const)(
    '%s: a SIGTERM to the npx process (kill <pid>) stops the program and releases the port',
    async (bin, args) => {
      // As a person types it; the bin is found in the folder's node_modules/.bin, so nothing is installed.
      const running = await start('npx', [bin, ...args]);
      expect(running.pid).not.toBe(running.child.pid);
      expect(await accepts(running.port)).toBe(true);
      running.child.kill('SIGTERM');
      await released(running);
    },
  );

  it('restbus-gateway: Ctrl-C (SIGINT to the process group) stops the program and releases the port', async () => {
    const running = await start('npx', ['restbus-gateway', ...gatewayArgs]);
    process.kill(-running.child.pid!, 'SIGINT');
    await released(running);
  });
});

describe('a program started otherwise outlives what started it', () => {
  it('keeps serving when the shell that started it in the background ends, as under nohup', async () => {
    const main = join(ROOT, 'gateway/dist/main.js');
    const quoted = [process.execPath, main, ...gatewayArgs].map((arg) => `'${arg}'`).join(' ');
    const running = await start('sh', ['-c', `${quoted} & wait`]);
    running.child.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect([isAlive(running.pid), await accepts(running.port)]).toEqual([true, true]);
    process.kill(running.pid, 'SIGTERM');
    await released(running);
  });
});
