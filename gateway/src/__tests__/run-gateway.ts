import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** The program as users run it; jest's global setup builds it. */
export const GATEWAY_MAIN = resolve(__dirname, '../../dist/main.js');

export interface GatewayRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `restbus-gateway <args>` to its end, with `env` over this process's environment. */
export function runGateway(args: string[], env: Record<string, string> = {}): Promise<GatewayRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [GATEWAY_MAIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
