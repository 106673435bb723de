import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

// The program as users run it; jest's global setup builds it.
const MAIN = resolve(__dirname, '../../../dist/main.js');

export interface RunningGateway {
  url: string;
  child: ChildProcess;
  /** Its log lines so far (JSON). */
  log: string[];
}

/**
 * Starts `restbus-gateway <args>` on port 0, trusting the test issuer's certificate (`certFile`); resolves once it
 * listens and, with `linked`, once it reaches NATS.
 */
export async function launchGateway(
  args: string[],
  options: { certFile?: string; linked: boolean },
): Promise<RunningGateway> {
  const env = { ...process.env, ...(options.certFile && { NODE_EXTRA_CA_CERTS: options.certFile }) };
  const child = spawn(process.execPath, [MAIN, ...args, '-p', '0', '--log-format', 'json'], { env });
  const log: string[] = [];
  let url: string | undefined;
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    log.push(line);
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg === 'gateway listening') {
      url = `http://127.0.0.1:${entry.port}`;
      break;
    }
  }
  lines.on('line', (line) => log.push(line));
  if (!url) throw new Error(`the gateway stopped before it listened:\n${log.join('\n')}`);
  for (let tries = 0; options.linked; tries++) {
    const ready = (await (await fetch(`${url}/-/ready`)).json()) as { nats?: string };
    if (ready.nats === 'connected') break;
    if (tries === 400) throw new Error('the gateway did not connect to NATS');
    await new Promise((done) => setTimeout(done, 25));
  }
  return { url, child, log };
}

export async function stopGateway(running: RunningGateway | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null) return;
  const exited = new Promise((done) => running.child.once('exit', done));
  running.child.kill('SIGTERM');
  await exited;
}

/** What a call got: status, the challenges, and the JSON body. */
export interface Seen {
  status: number;
  challenges: string | null;
  body: { code?: string; error?: string; user?: unknown; authorization?: string | null; [key: string]: unknown };
}

/** GET `path` with `Authorization: Bearer <token>` when a token is given. */
export async function callGateway(
  running: RunningGateway,
  path: string,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Seen> {
  const response = await fetch(`${running.url}${path}`, {
    headers: { ...headers, ...(token !== undefined && { authorization: `Bearer ${token}` }) },
  });
  return {
    status: response.status,
    challenges: response.headers.get('www-authenticate'),
    body: (await response.json()) as Seen['body'],
  };
}
