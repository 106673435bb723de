import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

// The program as users run it; jest's global setup builds it.
const MAIN = resolve(__dirname, '../../../dist/main.js');

export interface MockProcess {
  /** `http://127.0.0.1:<port>` */
  url: string;
  child: ChildProcess;
}

/**
 * `restbus-gateway -r <file> -m -p 0 --log-format json <extra>` as users run it (`--validate` is one of `extra`),
 * once it says it listens. Its stderr goes to the test's, so that a gateway that stops says why.
 */
export async function startMockProcess(file: string, extra: string[] = []): Promise<MockProcess> {
  const args = [MAIN, '-r', file, '-m', '-p', '0', '--log-format', 'json', ...extra];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout! })) {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg === 'gateway listening') return { url: `http://127.0.0.1:${entry.port}`, child };
  }
  throw new Error(`the gateway (${MAIN}) stopped before it listened: build it with npx tsc -b gateway`);
}

/** A fresh directory for the suite's API documents, made before its tests and removed after them. */
export function useTempDir(prefix: string): { readonly path: string } {
  const dir = { path: '' };
  beforeAll(async () => {
    dir.path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(() => rm(dir.path, { recursive: true, force: true }));
  return dir;
}
