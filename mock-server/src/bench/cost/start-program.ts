import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

/** restbus-mock as users run it, built (dist/main.js). */
const MOCK_MAIN = resolve(__dirname, '../../main.js');

export interface RunningProgram {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** restbus-mock in a process of its own on a free port; resolves once it logs `serving`. */
export function startProgram(args: string[]): Promise<RunningProgram> {
  const child = spawn(process.execPath, [MOCK_MAIN, ...args, '--port', '0', '--host', '127.0.0.1']);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
  };
  process.once('exit', () => child.kill('SIGKILL'));
  return new Promise((started, failed) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.msg === 'serving' && typeof entry.url === 'string') started({ url: entry.url, child, stop });
    });
    child.once('exit', (code) => failed(new Error(`restbus-mock exited with ${code}: ${stderr}`)));
  });
}

/** A field of /proc/<pid>/status in bytes (VmRSS: resident now, VmHWM: the most it was resident). */
export const procStatus = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const line = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text);
  if (!line) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(line[1]) * 1024;
};

export const MiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** PASS, or OVER ITS BOUND: a benchmark's verdict on one figure. */
export const verdict = (within: boolean): string => (within ? 'PASS' : 'OVER ITS BOUND');
