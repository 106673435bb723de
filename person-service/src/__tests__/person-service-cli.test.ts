import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { waitFor } from '@restbus/infra/testing';

// The service as users run it; jest's global setup builds it.
const MAIN = resolve(__dirname, '../../dist/main.js');

function run(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [MAIN, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** A port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build before these tests`);
});

describe('person-service on the command line', () => {
  it('documents --log-level, --log-format and the values of --store in its help', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('-l, --log-level <level>');
    expect(help.stdout).toContain('--log-format <format>');
    expect(help.stdout).toContain('one of jetstream|memory');
  });

  it('exits 2 naming the allowed values for a store it does not know', async () => {
    const result = await run(['--store', 'disk']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'person-service: invalid configuration: --store / STORE: must be one of jetstream|memory (got "disk")\n',
    );
  });

  it('says once, in one pretty line, that NATS is not there and that it keeps trying', async () => {
    const url = `nats://127.0.0.1:${await closedPort()}`;
    const child = spawn(process.execPath, [MAIN, '--nats-uri', url, '--log-format', 'pretty']);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // Its warning comes once it runs (and handles SIGTERM): a busy machine may take seconds to get there. Then more
    // connect attempts (one every 500 ms) go by, which must not repeat it.
    await waitFor(() => stdout.includes('NATS is not reachable'), { what: 'the warning that NATS is not reachable' });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    child.kill('SIGTERM');
    expect(await once(child, 'exit')).toEqual([0, null]);
    expect(stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[[\\d:.]+\\] WARN: nats: NATS is not reachable at ${url}; retrying until it is ` +
            `\\{"servers":\\["${url}"\\],"reason":"CONNECTION_REFUSED"\\}$`,
        ),
      ),
    ]);
  });
});
