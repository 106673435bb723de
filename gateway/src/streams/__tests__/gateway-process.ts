import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

/** The program as users run it (`npx tsc -b gateway` builds it). */
export const GATEWAY_MAIN = resolve(__dirname, '../../../dist/main.js');

export interface GatewayProcess {
  /** `127.0.0.1:<port>` */
  readonly base: string;
  readonly child: ChildProcess;
  /** The NATS server the gateway's link is on now (`127.0.0.1:<port>`), as its log last said. */
  server(): string | undefined;
  /** The gateway's log so far (for a failing test's message). */
  output(): string;
  /** A counter or gauge of /-/metrics. */
  metric(name: string): Promise<number>;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
}

const NATS_LINE = /^(connected|reconnected|moved) to NATS at /;

/**
 * `restbus-gateway -r <api> -n <urls> -p 0 -u --log-format json <extra>` as users run it, once it listens and its
 * NATS link is up (`/-/ready`). Its log is read for the node it is connected to.
 */
export async function startGatewayProcess(options: {
  api: string;
  natsUrls: string;
  extra?: string[];
}): Promise<GatewayProcess> {
  const args = [GATEWAY_MAIN, '-r', options.api, '-n', options.natsUrls, '-p', '0', '-u', '--log-format', 'json'];
  const child = spawn(process.execPath, [...args, ...(options.extra ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let server: string | undefined;
  child.stderr!.on('data', (chunk: Buffer) => (output += String(chunk)));
  const listening = new Promise<number>((done, fail) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (NATS_LINE.test(String(entry.msg)) && typeof entry.server === 'string') {
        server = entry.server.replace(/^nats:\/\//, '');
      }
      if (entry.msg === 'gateway listening') done(Number(entry.port));
    });
    child.once('exit', () => fail(new Error(`the gateway stopped before it listened:\n${output}`)));
    setTimeout(() => fail(new Error(`the gateway did not say it listens within 120 s:\n${output}`)), 120_000).unref();
  });
  const base = `127.0.0.1:${await listening.catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  })}`;
  for (let tries = 0; ; tries++) {
    const ready = (await (await fetch(`http://${base}/-/ready`)).json()) as { nats?: string };
    if (ready.nats === 'connected') break;
    if (tries === 200) {
      child.kill('SIGKILL');
      throw new Error(`the gateway did not connect to NATS within 10 s:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  return {
    base,
    child,
    server: () => server,
    output: () => output,
    async metric(name) {
      const text = await (await fetch(`http://${base}/-/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      if (!line) throw new Error(`no metric ${name} in /-/metrics`);
      return Number(line.split(' ').at(-1));
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
