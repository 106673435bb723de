import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { GATEWAY_MAIN as MAIN, runGateway as run } from './run-gateway';

const API = resolve(__dirname, '../../../person-service/person-api.yml');

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build before these tests`);
});

describe('restbus-gateway on the command line', () => {
  it('exits 0 for --help, which documents --log-level and --log-format', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('-l, --log-level <level>');
    expect(help.stdout).toContain('--log-format <format>');
  });

  it.each([
    ['an unknown option', ['--nope']],
    ['an option without its value', ['-r']],
    ['an extra argument', ['--port', '3017', 'extra', '-r', API]],
    ['a value out of range', ['-r', API, '--port', '70000']],
    ['a log level it does not know', ['-r', API, '--log-level', 'loud']],
  ])('exits 2 for %s', async (_case, args) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it("exits 2 with one line naming -o when easer's -o is given a wildcard subject", async () => {
    const result = await run(['-r', API, '-w', '-o', 'lamps.*']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'restbus-gateway: invalid configuration: --outbound / WSGW_OUTBOUND_TOPICS: "lamps.*" is not a NATS subject: it contains the wildcard "*": a client publishes to one subject (got "lamps.*")\n',
    );
  });

  it('exits 2 naming the variable when an environment variable has a value it cannot take', async () => {
    const result = await run(['-r', API], { LOG_FORMAT: 'plainText' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'restbus-gateway: invalid configuration: --log-format / LOG_FORMAT: must be one of pretty|json (got "plainText")\n',
    );
  });

  it.each([
    [['-c', 'config.js'], 'flags and environment variables only'],
    [['-t', 'plainText'], 'use --log-format pretty|json'],
    [['--parseJson'], 'forwards the exact body text'],
  ])("refuses easer's %j with exit 2 and one line saying why", async (flags, why) => {
    const result = await run(['-r', API, ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: option '-[-\w]+' is not supported: /);
    expect(result.stderr).toContain(why);
  });

  it("prints the effective configuration with -d, as easer did, without the NATS URL's credentials", async () => {
    const child = spawn(process.execPath, [MAIN, '-r', API, '-d', '-p', '0', '-n', 'nats://bob:s3cret@127.0.0.1:1']);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    while (!stdout.includes('}\n')) await once(child.stdout, 'data');
    child.kill('SIGTERM');
    await once(child, 'close');
    const config = JSON.parse(stdout.slice(stdout.indexOf('CONFIG: ') + 8, stdout.indexOf('}\n') + 1)) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({ restApiPath: [API], dumpConfig: true, natsUri: 'nats://127.0.0.1:1', port: 0 });
    expect(stdout).not.toContain('s3cret');
  });

  describe('on a port another program holds', () => {
    let holder: Server;
    beforeAll(async () => {
      holder = createServer().listen(0);
      await once(holder, 'listening');
    });
    afterAll(() => new Promise((resolve) => holder.close(resolve)));

    it('exits 1 with one line saying which port and how to choose another', async () => {
      const { port } = holder.address() as AddressInfo;
      const result = await run(['-r', API, '--port', String(port)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `restbus-gateway: port ${port} is already in use by another program; ` +
          `choose another port with --port ${port + 10} or GATEWAY_PORT=${port + 10}\n`,
      );
    });
  });

  it('writes pretty lines when LOG_FORMAT=pretty, even to a pipe', async () => {
    const child = spawn(process.execPath, [MAIN, '-r', API, '--port', '0'], {
      env: { ...process.env, LOG_FORMAT: 'pretty' },
    });
    const first = await new Promise<string>((found) => createInterface({ input: child.stdout }).once('line', found));
    child.kill('SIGTERM');
    await once(child, 'close');
    expect(first).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: restbus-gateway: gateway listening \{"port":\d+,/);
  });

  it("answers a described endpoint without -u with the specification's 501: one field, error, in JSON", async () => {
    const child = spawn(process.execPath, [MAIN, '-r', API, '--port', '0', '--log-format', 'json']);
    try {
      let port: number | undefined;
      for await (const line of createInterface({ input: child.stdout })) {
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        if (entry.msg === 'gateway listening') {
          port = entry.port;
          break;
        }
      }
      const response = await fetch(`http://127.0.0.1:${port}/persons/luke`, { method: 'PUT', body: '{}' });
      expect(response.status).toBe(501);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      // The machine-readable code travels beside the body, which keeps the shape the specification gives.
      expect(response.headers.get('x-restbus-error-code')).toBe('NOT_IMPLEMENTED');
      expect(await response.text()).toBe(
        '{"error":"The endpoint is either not implemented or `operationId` is ignored"}',
      );
    } finally {
      child.kill('SIGTERM');
      await once(child, 'close');
    }
  });
});
