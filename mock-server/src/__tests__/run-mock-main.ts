import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

// The program as users run it: the built binary in a real Node (jest's module registry would hide a reload of the
// project's implementation modules, and crashes on a project module that requires a missing package). jest's
// global setup builds it.
export const MOCK_MAIN = resolve(__dirname, '../../dist/main.js');

export interface ProgramRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** restbus-mock run to its exit, with `env` over this process's environment, in `cwd` (default: this one). */
export function runMockMain(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<ProgramRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [MOCK_MAIN, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
