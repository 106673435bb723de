import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { renameSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { recordHostileCounts, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startGateway, type RunningGateway } from '../app/start-gateway';
import type { GatewayConfig } from '../config';
import type { ApiLinter } from '../openapi/create-api-linter';
import { readApis, type LoadOptions } from '../openapi/load-api';
import { GATEWAY_MAIN, runGateway } from './run-gateway';

/** The longest subject a route may have (see the README's loading section): what nats-server's 4096-byte control line leaves. */
const SUBJECT_LIMIT = 3584;
/** A control character, raw: C0, DEL and C1. Diagnostics must show none of them (a newline ends a line, nothing else). */
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
/** Spectral is not what these tests look at: the loads in this process skip it (the binaries run it). */
const noLint: ApiLinter = { lint: () => Promise.resolve([]) };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whatever this file tried, for the run's hostile summary. */
const tried = { spellings: 0, documents: 0, signals: 0, reloadCalls: 0, calls: 0 };
const found = { fetches: 0, disconnects: 0, unnamed: 0, unescaped: 0, extraLoads: 0 };
afterAll(() => recordHostileCounts('gateway-load-reload', { tried, found }));

interface CountingServer {
  port: number;
  /** TCP connections accepted: any fetch, over HTTP or HTTPS, whatever it asked. */
  connections(): number;
  close(): Promise<void>;
}

/** An HTTP server on port 0 of every local address (IPv4 through the dual stack, and IPv6) that counts connections. */
async function startCountingServer(): Promise<CountingServer> {
  let connections = 0;
  const server = createServer((req, res) => {
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/a.yml` }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/yaml' }).end('type: object\n');
  });
  server.on('connection', () => connections++);
  server.listen(0, '::');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every way of writing "fetch this from that server" we know of: each resolves to the counting server. */
function urlSpellings(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/a.yml`,
    `http://0.0.0.0:${port}/a.yml`,
    `http://[::ffff:127.0.0.1]:${port}/a.yml`,
    `http://[::ffff:7f00:1]:${port}/a.yml`,
    `http://[::1]:${port}/a.yml`,
    `http://localhost:${port}/a.yml`,
    `http://2130706433:${port}/a.yml`,
    `http://0x7f.0.0.1:${port}/a.yml`,
    `HTTP://0.0.0.0:${port}/a.yml`,
    `hTtP://[::1]:${port}/a.yml#/definitions/x`,
    `https://0.0.0.0:${port}/a.yml`,
    `//0.0.0.0:${port}/a.yml`,
    `//[::1]:${port}/a.yml`,
    `\\\\0.0.0.0:${port}\\a.yml`,
    `https:0.0.0.0:${port}/a.yml`,
    `http:/0.0.0.0:${port}/a.yml`,
    `http://user:secret@0.0.0.0:${port}/a.yml`,
    `http://0.0.0.0:${port}/redirect`,
    `ht\ttp://0.0.0.0:${port}/a.yml`,
    ` http://0.0.0.0:${port}/a.yml`,
  ];
}

/** A document whose operation /r<i> has the i-th `$ref`, and whose components (no operation uses them) the others. */
function refDocument(used: readonly string[], unused: readonly string[] = []): string {
  const paths = Object.fromEntries(
    used.map((ref, i) => [
      `/r${i}`,
      {
        get: {
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } } },
        },
      },
    ]),
  );
  const schemas = {
    Fine: { type: 'object' },
    ...Object.fromEntries(unused.map((ref, i) => [`Unused${i}`, { $ref: ref }])),
  };
  return JSON.stringify(
    { openapi: '3.0.3', info: { title: 't', version: '1' }, paths, components: { schemas } },
    null,
    2,
  );
}

const GOOD = (path: string): string =>
  JSON.stringify({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: { [path]: { get: { responses: { '200': { description: 'ok' } } } } },
  });

type LogEntry = Record<string, unknown> & { msg: string };

interface GatewayProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The JSON log entries so far (with --log-format json), in order. */
  readonly entries: LogEntry[];
  stdout(): string;
  stderr(): string;
  /** The first entry (from `from` on) that `matches`, waiting for it. */
  waitFor(matches: (entry: LogEntry) => boolean, from?: number, timeoutMs?: number): Promise<LogEntry>;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** `restbus-gateway <args>` as users run it, its output kept. */
function startGatewayProcess(args: string[], env: Record<string, string> = {}): GatewayProcess {
  const child = spawn(process.execPath, [GATEWAY_MAIN, ...args], { env: { ...process.env, ...env } });
  const entries: LogEntry[] = [];
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      entries.push(JSON.parse(line) as LogEntry);
    } catch {
      return; // a pretty line
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    entries,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor(matches, from = 0, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const entry = entries.slice(from).find(matches);
          if (!entry) return;
          done();
          resolve(entry);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no such log entry within ${timeoutMs} ms; the gateway said:\n${stdout}\n${stderr}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        void exited.then(() => {
          if (!waiters.has(check)) return;
          done();
          reject(new Error(`the gateway exited; it said:\n${stdout}\n${stderr}`));
        });
        waiters.add(check);
        check();
      });
    },
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-load-reload-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loading reads only local files: no $ref is ever fetched', () => {
  let server: CountingServer;
  let spellings: string[];
  beforeAll(async () => {
    server = await startCountingServer();
    spellings = urlSpellings(server.port);
  });
  afterAll(async () => {
    found.fetches += server.connections();
    await server.close();
  });

  it('refuses a $ref to a URL in every spelling, used or not, naming the file, where it is and the $ref, and fetches nothing', async () => {
    const unnamed: string[] = [];
    const file = join(dir, 'one-url.json');
    for (const options of [{}, { allowOutsideRefs: true }] as LoadOptions[]) {
      for (const ref of spellings) {
        for (const used of [true, false]) {
          await writeFile(file, used ? refDocument([ref]) : refDocument(['#/components/schemas/Fine'], [ref]));
          tried.spellings++;
          tried.documents++;
          const { endpoints, diagnostics } = await readApis([file], { ...options, linter: noLint });
          const named = diagnostics.some(
            (diagnostic) =>
              diagnostic.severity === 'error' &&
              diagnostic.file === file &&
              diagnostic.line !== undefined &&
              diagnostic.path ===
                (used ? 'paths./r0.get.responses.200.content.application/json.schema' : 'components.schemas.Unused0') &&
              diagnostic.message.includes(`$ref ${JSON.stringify(ref)} names a URL`),
          );
          if (!named || endpoints.length > 0) unnamed.push(`${JSON.stringify(ref)} ${JSON.stringify(diagnostics)}`);
        }
      }
    }
    found.unnamed += unnamed.length;
    expect({ unnamed, fetches: server.connections() }).toEqual({ unnamed: [], fetches: 0 });
  });

  it('refuses a URL $ref written in a file that a local $ref led to, naming that file', async () => {
    const sub = join(dir, 'sub-with-url.json');
    const file = join(dir, 'root-of-sub.json');
    const ref = `http://0.0.0.0:${server.port}/a.yml`;
    await writeFile(sub, JSON.stringify({ Pet: { type: 'object', properties: { owner: { $ref: ref } } } }));
    await writeFile(file, refDocument(['./sub-with-url.json#/Pet']));
    tried.documents++;
    const { diagnostics } = await readApis([file], { linter: noLint });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        file: sub,
        path: 'Pet.properties.owner',
        message: expect.stringContaining(`$ref ${JSON.stringify(ref)} names a URL`),
      }),
    );
    expect(server.connections()).toBe(0);
  });

  it('refuses an API file given as a URL, fetching nothing', async () => {
    for (const file of [`http://0.0.0.0:${server.port}/api.yml`, `HTTPS://[::1]:${server.port}/api.yml`]) {
      tried.documents++;
      const { diagnostics } = await readApis([file], { linter: noLint });
      expect(diagnostics).toEqual([
        expect.objectContaining({
          severity: 'error',
          file,
          message: expect.stringMatching(/^cannot read the API description: it is a URL/),
        }),
      ]);
    }
    expect(server.connections()).toBe(0);
  });

  it('restbus-gateway --check names every URL $ref of a document with its line, exits 1, and fetches nothing', async () => {
    const file = join(dir, 'all-urls.json');
    await writeFile(file, refDocument(spellings, spellings));
    tried.documents++;
    const result = await runGateway(['--check', '-r', file]);
    const lines = result.stdout.split('\n');
    const unnamed = spellings.filter(
      (ref) =>
        lines
          .filter((line) =>
            new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+  error  .*names a URL`).test(line),
          )
          .filter((line) => line.includes(JSON.stringify(ref))).length !== 2,
    );
    found.unnamed += unnamed.length;
    expect({ unnamed, code: result.code, fetches: server.connections() }).toEqual({ unnamed: [], code: 1, fetches: 0 });
    expect(lines.at(-2)).toMatch(/: \d+ errors, \d+ warnings?; cannot be served$/);
  });

  it('restbus-gateway --check refuses an API file given as a URL, and fetches nothing', async () => {
    const file = `http://0.0.0.0:${server.port}/api.yml`;
    const result = await runGateway(['--check', '-r', file]);
    expect(result.stdout).toContain(`${file}  error  cannot read the API description: it is a URL`);
    expect({ code: result.code, fetches: server.connections() }).toEqual({ code: 1, fetches: 0 });
  });

  it('a gateway refuses URL $refs at start and on SIGHUP, naming each, keeps its routes, and fetches nothing', async () => {
    const file = join(dir, 'reloaded-to-urls.json');
    await writeFile(file, GOOD('/good'));
    const gateway = startGatewayProcess(['-r', file, '-p', '0', '--log-format', 'json']);
    try {
      const { port } = await gateway.waitFor((entry) => entry.msg === 'gateway listening');
      await writeFile(file, refDocument(spellings, spellings));
      tried.documents++;
      const from = gateway.entries.length;
      gateway.child.kill('SIGHUP');
      tried.signals++;
      const reload = await gateway.waitFor((entry) => entry.msg.startsWith('API reload'), from);
      expect(reload.msg).toBe('API reload failed; the previous endpoints keep serving');
      const message = (reload.err as { message: string }).message;
      expect(spellings.filter((ref) => !message.includes(`$ref ${JSON.stringify(ref)} names a URL`))).toEqual([]);
      expect((await fetch(`http://127.0.0.1:${String(port)}/good`)).status).toBe(501);
    } finally {
      await gateway.stop();
    }
    const started = await runGateway(['-r', file, '-p', '0']);
    expect(started.code).toBe(1);
    expect(spellings.filter((ref) => !started.stderr.includes(`$ref ${JSON.stringify(ref)} names a URL`))).toEqual([]);
    expect(server.connections()).toBe(0);
  });

  it('reads a local file outside the API folder only with --allowOutsideRefs, and never a URL even then', async () => {
    const apiDir = join(dir, 'api');
    const outside = join(dir, 'outside.json');
    const file = join(apiDir, 'api.json');
    const url = `http://0.0.0.0:${server.port}/a.yml`;
    await rm(apiDir, { recursive: true, force: true });
    await mkdir(apiDir);
    await writeFile(outside, JSON.stringify({ type: 'object' }));
    await writeFile(file, refDocument(['../outside.json', url]));
    tried.documents++;
    const confined = await runGateway(['--check', '-r', file]);
    expect(confined.code).toBe(1);
    expect(confined.stdout).toContain(`is outside the folder of the API file (${apiDir})`);
    const allowed = await runGateway(['--check', '--allowOutsideRefs', '-r', file]);
    expect(allowed.code).toBe(1);
    expect(allowed.stdout).not.toContain('outside the folder');
    expect(allowed.stdout).toContain(`$ref ${JSON.stringify(url)} names a URL`);
    await writeFile(file, refDocument(['../outside.json']));
    expect((await runGateway(['--check', '--allowOutsideRefs', '-r', file])).code).toBe(0);
    expect(server.connections()).toBe(0);
  });
});

/** A path of `bytes` bytes in all whose subject, with `prefix` and `method`, has exactly `subjectBytes`. */
function pathOfSubject(method: string, subjectBytes: number, prefix = 'easer', filler = 'a'): string {
  const head = `${prefix}.${method}_/`;
  const room = subjectBytes - Buffer.byteLength(head);
  const unit = Buffer.byteLength(filler);
  return `/${filler.repeat(Math.floor(room / unit))}${'a'.repeat(room % unit)}`;
}

function operationsDocument(operations: ReadonlyArray<[method: string, path: string]>): string {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [method, path] of operations) {
    const parameters = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    paths[path] = { ...paths[path], [method]: { parameters, responses: { '200': { description: 'ok' } } } };
  }
  return JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths });
}

/** Control characters a path may hold in a JSON document; each would be written into the NATS subject. */
const CONTROLS = ['\u0000', '\u0007', '\b', '\u001b', '\u007f', '\u0085', '\u009b', '\r', '\n', '\t', '\u000b', '\f'];
const escaped = (character: string): string =>
  ({ '\r': '\\r', '\n': '\\n', '\t': '\\t' })[character] ??
  `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

describe('paths that NATS cannot carry are refused at load', () => {
  it('loads the longest subject for each method (multi-byte characters counted in bytes) and refuses one byte more', async () => {
    const file = join(dir, 'subjects.json');
    const longest: Array<[string, string]> = [
      ['get', pathOfSubject('get', SUBJECT_LIMIT)],
      ['delete', pathOfSubject('delete', SUBJECT_LIMIT, 'easer', 'b')],
      ['put', pathOfSubject('put', SUBJECT_LIMIT, 'easer', 'é')],
    ];
    await writeFile(file, operationsDocument(longest));
    tried.documents++;
    expect((await readApis([file], { linter: noLint })).diagnostics).toEqual([]);
    for (const [method, path] of longest) {
      await writeFile(file, operationsDocument([[method, `${path}z`]]));
      tried.documents++;
      const { endpoints, diagnostics } = await readApis([file], { linter: noLint });
      expect(endpoints).toEqual([]);
      expect(diagnostics).toEqual([
        expect.objectContaining({
          severity: 'error',
          path: `paths.${path}z.${method}`,
          line: 1,
          message: expect.stringMatching(
            new RegExp(`subject .* would have ${SUBJECT_LIMIT + 1} bytes, more than the limit of ${SUBJECT_LIMIT}`),
          ),
        }),
      ]);
    }
  });

  it('counts the topic prefix it is given in the subject', async () => {
    const file = join(dir, 'prefixed.json');
    const prefix = 'p'.repeat(256);
    const path = pathOfSubject('get', SUBJECT_LIMIT, prefix);
    await writeFile(file, operationsDocument([['get', path]]));
    tried.documents++;
    const options = { topicPrefix: prefix, linter: noLint };
    expect((await readApis([file], options)).diagnostics).toEqual([]);
    await writeFile(file, operationsDocument([['get', `${path}z`]]));
    expect((await readApis([file], options)).diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', message: expect.stringMatching(/more than the limit of 3584/) }),
    ]);
  });

  it('refuses a path holding a control character, and says which one, escaped, as every part of a diagnostic is', async () => {
    const file = join(dir, 'controls.json');
    const problems: string[] = [];
    for (const control of CONTROLS) {
      await writeFile(file, operationsDocument([['get', `/a${control}b/{id}`]]));
      tried.documents++;
      const { endpoints, diagnostics } = await readApis([file], { linter: noLint });
      const error = diagnostics.find((diagnostic) => diagnostic.severity === 'error');
      const ok =
        endpoints.length === 0 &&
        error?.path === `paths./a${escaped(control)}b/{id}` &&
        error.message.includes(escaped(control)) &&
        !diagnostics.some((diagnostic) => RAW_CONTROL.test(JSON.stringify(Object.values(diagnostic))));
      if (!ok) problems.push(`${escaped(control)}: ${JSON.stringify(diagnostics)}`);
    }
    found.unescaped += problems.length;
    expect(problems).toEqual([]);
  });

  describe('through the gateway, against a real nats-server', () => {
    let nats: TestNatsServer;
    let service: NatsConnection;
    beforeAll(async () => {
      nats = await startNatsServer();
      service = await connect({ servers: nats.url });
      // Answers every route with the subject it was called on.
      service.subscribe('easer.>', {
        callback: (_err, msg) => msg.respond(JSON.stringify({ status: 200, body: { subject: msg.subject } })),
      });
      await service.flush();
    });
    afterAll(async () => {
      await service?.close();
      await nats?.dispose();
    });

    const lostNats = (entry: LogEntry): boolean => /^lost NATS/.test(entry.msg);

    it('calls the longest allowed subjects and takes hostile paths without its NATS connection ever dropping', async () => {
      const file = join(dir, 'longest.json');
      const longest: Array<[string, string]> = [
        ['get', pathOfSubject('get', SUBJECT_LIMIT)],
        ['delete', pathOfSubject('delete', SUBJECT_LIMIT, 'easer', 'b')],
        ['put', pathOfSubject('put', SUBJECT_LIMIT, 'easer', 'é')],
        ['get', '/p/{id}'],
      ];
      await writeFile(file, operationsDocument(longest));
      tried.documents++;
      const gateway = startGatewayProcess(['-r', file, '-p', '0', '-u', '-n', nats.url, '--log-format', 'json']);
      try {
        const { port } = await gateway.waitFor((entry) => entry.msg === 'gateway listening');
        await gateway.waitFor((entry) => /^connected to NATS/.test(entry.msg));
        const base = `http://127.0.0.1:${String(port)}`;
        for (const [method, path] of longest.slice(0, 3)) {
          const response = await fetch(`${base}${encodeURI(path)}`, { method: method.toUpperCase() });
          tried.calls++;
          expect(response.status).toBe(200);
          const { subject } = (await response.json()) as { subject: string };
          expect([Buffer.byteLength(subject), subject]).toEqual([SUBJECT_LIMIT, `easer.${method}_${path}`]);
        }
        const hostile = ['%07', '%0D%0A', '%20', '*', '%3E', '..', '%00', '%C2%85', '%E2%80%A8', 'x'.repeat(8000)];
        const statuses = await Promise.all(
          hostile.map(async (id) => {
            tried.calls++;
            return (await fetch(`${base}/p/${id}`)).status;
          }),
        );
        expect(statuses.filter((status) => status >= 500)).toEqual([]);
        // Still connected: one more call answers, and neither side saw the connection go.
        expect((await fetch(`${base}/p/last`)).status).toBe(200);
        const disconnects = gateway.entries.filter(lostNats).length;
        found.disconnects += disconnects;
        expect({ disconnects, server: /control line/i.test(nats.output()) }).toEqual({ disconnects: 0, server: false });
      } finally {
        await gateway.stop();
      }
    });

    it.each([
      ['a subject one byte too long', [['get', `${pathOfSubject('get', SUBJECT_LIMIT)}z`]], /more than the limit/],
      ['a subject far too long', [['post', pathOfSubject('post', 5000)]], /more than the limit/],
      ['a bell in a path', [['get', '/ring\u0007/{id}']], /\\u0007/],
      ['an escape sequence in a path', [['get', '/red\u001b[31m']], /\\u001b\[31m/],
      ['a CR LF in a path', [['get', '/x\r\nPUB evil 0']], /\\r\\nPUB evil 0/],
    ] as Array<[string, Array<[string, string]>, RegExp]>)(
      'refuses at start a document with %s, saying so escaped, so no call can disconnect it',
      async (_name, operations, says) => {
        const file = join(dir, 'unsafe.json');
        await writeFile(file, operationsDocument(operations));
        tried.documents++;
        const gateway = startGatewayProcess(['-r', file, '-p', '0', '-u', '-n', nats.url, '--log-format', 'json']);
        const outcome = await Promise.race([
          gateway.exited.then((code) => ({ code })),
          gateway
            .waitFor((entry) => entry.msg === 'gateway listening')
            .then(async ({ port }) => {
              // Served anyway: show what a call does to the connection.
              await gateway.waitFor((entry) => /^connected to NATS/.test(entry.msg));
              const [method, path] = operations[0];
              const status = await fetch(`http://127.0.0.1:${String(port)}${encodeURI(path).replace(/\{id\}/, '1')}`, {
                method: method.toUpperCase(),
              }).then(
                (response) => response.status,
                (err: Error) => err.message,
              );
              await sleep(300);
              const disconnects = gateway.entries.filter(lostNats).length;
              found.disconnects += disconnects;
              return { served: status, disconnects };
            }),
        ]).finally(() => gateway.stop());
        expect(outcome).toEqual({ code: 1 });
        expect(gateway.stderr()).toMatch(says);
        expect(gateway.stderr()).toMatch(/^restbus-gateway: .* {2}error {2}paths\./);
        expect(RAW_CONTROL.test(gateway.stderr())).toBe(false);
      },
    );
  });

  it('prints control characters escaped in --check, in JSON logs and in pretty logs', async () => {
    const file = join(dir, 'escape.json');
    const unsafe = operationsDocument([['get', '/a\u0007\u001b[2J\u009b\r\nb']]);
    await writeFile(file, unsafe);
    tried.documents++;
    const check = await runGateway(['--check', '-r', file]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      'paths./a\\u0007\\u001b[2J\\u009b\\r\\nb: the path contains the control character \\u0007',
    );
    const problems: string[] = [];
    if (RAW_CONTROL.test(check.stdout)) problems.push(`--check: ${JSON.stringify(check.stdout)}`);
    for (const format of ['json', 'pretty']) {
      await writeFile(file, GOOD('/fine'));
      const gateway = startGatewayProcess(['-r', file, '-p', '0', '--log-format', format]);
      try {
        if (format === 'json') await gateway.waitFor((entry) => entry.msg === 'gateway listening');
        else while (!gateway.stdout().includes('gateway listening')) await sleep(20);
        await writeFile(file, unsafe);
        const before = gateway.stdout().length;
        gateway.child.kill('SIGHUP');
        tried.signals++;
        while (!/API reload/.test(gateway.stdout().slice(before))) await sleep(20);
        await sleep(100);
        const said = gateway.stdout().slice(before);
        expect(said).toContain('API reload failed');
        expect(said).toContain(format === 'json' ? 'paths./a\\\\u0007' : 'paths./a\\u0007');
        if (RAW_CONTROL.test(said)) problems.push(`${format}: ${JSON.stringify(said)}`);
      } finally {
        await gateway.stop();
      }
    }
    found.unescaped += problems.length;
    expect(problems).toEqual([]);
  });

  it('validates --topicPrefix and --inboxPrefix as it does paths: no control character, at most 256 bytes', async () => {
    const file = join(dir, 'prefix.json');
    await writeFile(file, GOOD('/fine'));
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--topicPrefix', 'a\u0007b'], {}, /--topicPrefix \/ TOPIC_PREFIX: .*\\u0007/],
      [[], { TOPIC_PREFIX: 'a\u001bb' }, /--topicPrefix \/ TOPIC_PREFIX: .*\\u001b/],
      [['--topicPrefix', 'p'.repeat(257)], {}, /--topicPrefix \/ TOPIC_PREFIX: .*at most 256 bytes/],
      [['--inboxPrefix', 'i\u007f'], {}, /--inboxPrefix \/ NATS_INBOX_PREFIX: .*\\u007f/],
      [['--inboxPrefix', 'i'.repeat(257)], {}, /--inboxPrefix \/ NATS_INBOX_PREFIX: .*at most 256 bytes/],
    ];
    for (const [args, env, says] of cases) {
      for (const mode of [['--check'], ['-p', '0']]) {
        const result = await runGateway([...mode, '-r', file, ...args], env);
        expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(says) });
        expect(RAW_CONTROL.test(result.stderr)).toBe(false);
      }
    }
    // A prefix within its own bound still counts in each route's subject.
    const prefix = 'p'.repeat(256);
    await writeFile(file, operationsDocument([['get', `${pathOfSubject('get', SUBJECT_LIMIT, prefix)}z`]]));
    const check = await runGateway(['--check', '--topicPrefix', prefix, '-r', file]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/more than the limit of 3584/);
  });
});

/** Replaces the file at once, as an editor saving it does: a load never reads it half written. */
async function replaceFile(file: string, text: string): Promise<void> {
  await writeFile(`${file}.new`, text);
  await rename(`${file}.new`, file);
}

/** replaceFile within the current tick: no run of the gateway's can end while it writes. */
function replaceFileSync(file: string, text: string): void {
  writeFileSync(`${file}.new`, text);
  renameSync(`${file}.new`, file);
}

describe('reloads are coalesced', () => {
  /** A JSON logger whose entries the test reads. */
  function collectingLogger(): { logger: pino.Logger; entries: LogEntry[] } {
    const entries: LogEntry[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) entries.push(JSON.parse(line) as LogEntry);
        done();
      },
    });
    return { logger: pino({ level: 'info' }, stream), entries };
  }
  const config = (file: string): GatewayConfig => ({
    restApiPath: [file],
    port: 0,
    natsUri: 'nats://127.0.0.1:1',
    topicPrefix: 'easer',
    inboxPrefix: '_INBOX',
    useMessaging: false,
    timeout: 2000,
    basePath: '/',
    bodyLimit: 65536,
    logLevel: 'info',
    validate: false,
    validateReplies: 'off',
    validateRepliesSample: 1,
  });
  const loads = (entries: LogEntry[]): number =>
    entries.filter((entry) => entry.msg === 'API reloaded' || entry.msg.startsWith('API reload failed')).length;

  it('runs 50 reloads called at once as at most 2 loads, and ends on the files as they were last written', async () => {
    const file = join(dir, 'coalesced.json');
    await writeFile(file, GOOD('/first'));
    const { logger, entries } = collectingLogger();
    let gateway: RunningGateway | undefined;
    try {
      gateway = await startGateway(config(file), logger);
      const running = gateway;
      const base = `http://127.0.0.1:${running.port}`;
      await replaceFile(file, GOOD('/second'));
      const early = Array.from({ length: 25 }, () => running.reload());
      // Replaced without an await: the first load may not end between the two bursts. If it did, the second burst
      // would rightly need a third load (one that starts after it), as a busy machine once showed.
      replaceFileSync(file, GOOD('/last'));
      const late = Array.from({ length: 25 }, () => running.reload());
      tried.reloadCalls += 50;
      const results = await Promise.all([...early, ...late]);
      expect(results.every(Boolean)).toBe(true);
      found.extraLoads += Math.max(0, loads(entries) - 2);
      expect(loads(entries)).toBeLessThanOrEqual(2);
      expect([(await fetch(`${base}/last`)).status, (await fetch(`${base}/first`)).status]).toEqual([501, 404]);
      // A reload asked for after that runs again.
      await replaceFile(file, GOOD('/after'));
      expect(await running.reload()).toBe(true);
      expect((await fetch(`${base}/after`)).status).toBe(501);
    } finally {
      await gateway?.stop();
    }
    // Uncoalesced, the 50 loads ran at once and took minutes on two cores.
  });

  it('a SIGHUP that comes while the gateway starts does not end it: it reloads once the gateway is up', async () => {
    const file = join(dir, 'early-signal.json');
    await replaceFile(file, GOOD('/early'));
    // -d prints the configuration once it is read, just before the gateway starts loading its files.
    const gateway = startGatewayProcess(['-r', file, '-p', '0', '--log-format', 'json', '-d']);
    try {
      while (!gateway.stdout().includes('CONFIG:')) await sleep(5);
      await sleep(50);
      expect(gateway.entries.some((entry) => entry.msg === 'gateway listening')).toBe(false);
      gateway.child.kill('SIGHUP');
      tried.signals++;
      await gateway.waitFor((entry) => entry.msg === 'API reloaded');
      expect(gateway.child.exitCode).toBe(null);
    } finally {
      await gateway.stop();
    }
  });

  it('a burst of 50 SIGHUPs leaves the real gateway at most two loads behind it (the one running and one queued), serving all along, and it reloads after', async () => {
    const file = join(dir, 'signals.json');
    await writeFile(file, GOOD('/before'));
    const gateway = startGatewayProcess(['-r', file, '-p', '0', '--log-format', 'json']);
    try {
      const { port } = await gateway.waitFor((entry) => entry.msg === 'gateway listening');
      const base = `http://127.0.0.1:${String(port)}`;
      await replaceFile(file, GOOD('/burst'));
      const statuses: number[] = [];
      // Spread over about 250 ms: each signal reaches the gateway on its own (the kernel merges only pending ones).
      for (let signal = 0; signal < 50; signal++) {
        gateway.child.kill('SIGHUP');
        tried.signals++;
        if (signal % 5 === 0) statuses.push((await fetch(`${base}/burst`)).status);
        await sleep(5);
      }
      // Loads that ended while the burst was still being sent: on a busy machine a load can end before the burst
      // does, and the signals after it rightly start another. Coalescing means what the burst leaves behind is at
      // most the load running and one queued, however many signals came.
      const endedDuringBurst = loads(gateway.entries);
      await gateway.waitFor((entry) => entry.msg === 'API reloaded', 0, 150_000);
      // Quiet for 3 s: the queued load, if any, has run.
      for (let seen = -1; seen !== loads(gateway.entries);) {
        seen = loads(gateway.entries);
        await sleep(3000);
      }
      const count = loads(gateway.entries);
      found.extraLoads += Math.max(0, count - endedDuringBurst - 2);
      expect(count - endedDuringBurst).toBeLessThanOrEqual(2);
      expect(statuses.every((status) => status === 501 || status === 404)).toBe(true);
      expect([(await fetch(`${base}/burst`)).status, (await fetch(`${base}/before`)).status]).toEqual([501, 404]);
      // One more signal is one more load, and nothing of the burst is left to run.
      await replaceFile(file, GOOD('/after'));
      gateway.child.kill('SIGHUP');
      tried.signals++;
      while ((await fetch(`${base}/after`)).status !== 501) await sleep(50);
      await sleep(1000);
      // A load the burst queued may still have been running through the quiet spell on a busy machine: the signal
      // after it makes one more load, and everything together stays within the burst's two and this one.
      const after = loads(gateway.entries);
      expect(after).toBeGreaterThanOrEqual(count + 1);
      expect(after - endedDuringBurst).toBeLessThanOrEqual(3);
    } finally {
      await gateway.stop();
    }
  });
});
