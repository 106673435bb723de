import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { MOCK_MAIN } from './run-mock-main';
import { writeProject, type Files } from './sample-project';

export interface RunningMockProgram {
  url: string;
  child: ChildProcess;
  /** Every line the program wrote to stdout so far (JSON log lines parsed). */
  log: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** restbus-mock as users run it, on a free port; resolves once it logs `serving`. */
export function startMockProgram(args: string[], env: Record<string, string> = {}): Promise<RunningMockProgram> {
  const child = spawn(process.execPath, [MOCK_MAIN, ...args, '--port', '0', '--host', '127.0.0.1'], {
    env: { ...process.env, ...env },
  });
  const log: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
  };
  return new Promise((started, failed) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as Record<string, unknown>;
      log.push(entry);
      if (entry.msg === 'serving' && typeof entry.url === 'string') started({ url: entry.url, child, log, stop });
    });
    child.once('exit', (code) => failed(new Error(`restbus-mock exited with ${code}: ${stderr}`)));
  });
}

/**
 * One project folder and restbus-mock per test, both gone after it: `serve` writes the files and starts the
 * program (answering the API's base URL, `/rest`), `write` only writes them.
 */
export function useMockProgram() {
  let dir: string | undefined;
  let program: RunningMockProgram | undefined;
  afterEach(async () => {
    await program?.stop();
    program = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const write = async (files: Files): Promise<string> => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = await writeProject(files);
    return dir;
  };
  return {
    write,
    async serve(files: Files, ...args: string[]): Promise<string> {
      program = await startMockProgram(['--project', await write(files), '--no-watch', ...args]);
      return `${program.url}/rest`;
    },
    /** What the program logged so far (JSON lines). */
    log: (): Array<Record<string, unknown>> => program?.log ?? [],
  };
}
