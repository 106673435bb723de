import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createInterface } from 'node:readline';
import { parse } from 'yaml';
import { writeProject, type Files } from '@restbus/project-format/testing';
import { MOCK_MAIN, runMockMain } from './run-mock-main';

// Record mode as users run it: the built restbus-mock in its own process, a real upstream server, real project
// folders; then the recorded project checked and served by the normal mock server.

type LogLine = Record<string, unknown>;

/** A call the upstream received. */
interface UpstreamCall {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const TWO_MIB = 2 * 1024 * 1024;

/** The real server being recorded: JSON and text answers with a few headers, ids in paths, a slow and a big one. */
function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  const url = new URL(req.url ?? '/', 'http://upstream');
  const json = (status: number, value: unknown, headers: OutgoingHttpHeaders = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(value));
  };
  const id = /^\/rest\/(customers|orders)\/([^/]+)$/.exec(url.pathname);
  if (req.method === 'GET' && url.pathname === '/rest/customers') {
    json(200, [{ id: 1, name: 'Ada' }], { 'x-total-count': '1' });
  } else if (req.method === 'POST' && url.pathname === '/rest/customers') {
    json(201, { id: 3, ...(JSON.parse(body) as object) }, { location: '/rest/customers/3' });
  } else if (req.method === 'GET' && id?.[1] === 'customers') {
    json(
      200,
      { id: Number(id[2]), name: `Customer ${id[2]}`, tags: ['vip'] },
      // Volatile headers a mock must not replay, and one worth keeping.
      { etag: `W/"${id[2]}"`, 'x-request-id': `req-${Math.random()}`, 'cache-control': 'no-cache', 'x-tenant': 'acme' },
    );
  } else if (req.method === 'GET' && id?.[1] === 'orders') {
    setTimeout(() => json(200, { id: id[2], state: 'open' }), 150);
  } else if (req.method === 'DELETE' && id?.[1] === 'customers') {
    res.writeHead(204).end();
  } else if (req.method === 'GET' && url.pathname === '/rest/compressed') {
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    const text = JSON.stringify({ packed: true });
    res.writeHead(200, {
      'content-type': 'application/json',
      vary: 'accept-encoding',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    res.end(gzip ? gzipSync(text) : text);
  } else if (req.method === 'GET' && url.pathname === '/rest/greeting') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('hello, world\n');
  } else if (req.method === 'GET' && url.pathname === '/rest/whoami') {
    json(
      200,
      { authorization: req.headers.authorization ?? null, query: url.search },
      { 'set-cookie': ['session=s3cr3t-session; Path=/; HttpOnly'], 'x-auth-token': 'tok-123' },
    );
  } else if (req.method === 'GET' && url.pathname === '/rest/big') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('x'.repeat(TWO_MIB));
  } else {
    json(404, { error: 'not here', code: 'NOT_FOUND' });
  }
}

async function startUpstream(): Promise<{ url: string; calls: UpstreamCall[]; server: Server }> {
  const calls: UpstreamCall[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      calls.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, server };
}

/** A project with one service, GET /customers, written with comments as a person would. */
const CUSTOMERS_YML = `# Our customers: listed here, the rest is recorded.
name: Customers
description: The customers
style: COLLECTION
uriTemplate: /customers
methods:
  # Lists them all.
  GET:
    summary: List the customers
    responses:
      - name: OK
        statusCode: 200
        reason: Successful execution
        mockBody: getCollection-responseBody.json # the seed
`;

const projectFiles = (environments = '  development: {}\n'): Files => ({
  'server/config.yml': `useEnvironment: development\nenvironments:\n  default:\n    port: 3007\n${environments}`,
  'config.yml': `projectName: recorded
apiVersion: v1.0.0
author: me
licence: MIT
serviceUrlPrefix: /rest
servicePort: 3007
baseUrl: http://localhost:3007/rest
servicesRoot: services
services:
  - /customers
  # Recorded services are listed above this line.
`,
  'services/customers/service.yml': CUSTOMERS_YML,
  'services/customers/getCollection-responseBody.json': '[{ "id": 1, "name": "Ada" }]\n',
});

/** Every file of a folder by relative path, with its content. */
async function readTree(root: string, dir = root): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(files, await readTree(root, path));
    else files[relative(root, path)] = await readFile(path, 'utf8');
  }
  return files;
}

interface Program {
  url: string;
  log: LogLine[];
  /** SIGTERM, then the exit code once it has exited. */
  stop(): Promise<number | null>;
}

/** restbus-mock with `args` on a free port of 127.0.0.1, once it logs `ready` (a message). */
function startProgram(args: string[], ready: string): Promise<Program> {
  const child = spawn(process.execPath, [MOCK_MAIN, ...args, '--port', '0', '--host', '127.0.0.1'], {
    env: { ...process.env, LOG_FORMAT: 'json', LOG_LEVEL: 'debug' },
  });
  const log: LogLine[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const lines = createInterface({ input: child.stdout });
  const closed = new Promise<void>((done) => lines.once('close', done));
  return new Promise((started, failed) => {
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as LogLine;
      log.push(entry);
      if (entry.msg === ready && typeof entry.url === 'string') {
        started({
          url: entry.url,
          log,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            const code = await exited;
            await closed;
            return code;
          },
        });
      }
    });
    void exited.then((code) => failed(new Error(`restbus-mock exited with ${code}: ${stderr}`)));
  });
}

const record = (project: string, target: string, ...more: string[]): Promise<Program> =>
  startProgram(['record', '--project', project, '--target', target, ...more], 'recording');
const serve = (project: string): Promise<Program> => startProgram(['--project', project, '--no-watch'], 'serving');

const messages = (log: LogLine[]): string[] => log.map((line) => String(line.msg));

/** The parts of a written service.yml the tests read. */
interface FieldEntry {
  field: string;
  content: string;
}
interface WrittenMethod {
  summary: string;
  request?: { parameters?: unknown[]; headers?: FieldEntry[]; cookies?: FieldEntry[] };
  responses: Array<{ statusCode: number; headers?: FieldEntry[]; cookies?: FieldEntry[]; mockBody?: string }>;
}
interface WrittenService {
  name: string;
  style: string;
  uriTemplate: string;
  methods: Record<string, WrittenMethod>;
}
const readService = async (path: string): Promise<WrittenService> =>
  parse(await readFile(path, 'utf8')) as WrittenService;

let upstream: Awaited<ReturnType<typeof startUpstream>>;
const folders: string[] = [];
const newProject = async (files: Files = projectFiles()): Promise<string> => {
  const dir = await writeProject(files);
  folders.push(dir);
  return dir;
};

beforeAll(async () => {
  if (!existsSync(MOCK_MAIN)) throw new Error(`${MOCK_MAIN} is missing: run npm run build before these tests`);
  upstream = await startUpstream();
});
afterAll(async () => {
  upstream?.server.close();
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

describe('restbus-mock record', () => {
  // One recording session whose project the later tests read and serve.
  let project: string;
  let before: Record<string, string>;
  let session: Program;
  const answers: Record<string, { status: number; type: string | null; body: string }> = {};
  beforeAll(async () => {
    project = await newProject({
      ...projectFiles(),
      // A file nobody refers to, where the POST's mock file would go, and a service folder that is not listed.
      'services/customers/postCollection-responseBody.json': '{ "mine": true }\n',
      'services/greeting/service.yml': "# not listed in config.yml, but not the recorder's either\n",
    });
    before = await readTree(project);
    session = await record(project, upstream.url);
    const call = async (name: string, path: string, init?: RequestInit): Promise<void> => {
      const response = await fetch(`${session.url}${path}`, init);
      answers[name] = {
        status: response.status,
        type: response.headers.get('content-type'),
        body: await response.text(),
      };
    };
    await call('customer 42', '/rest/customers/42?expand=tags');
    await call('customer 43', '/rest/customers/43');
    await call('list', '/rest/customers');
    await call('add', '/rest/customers', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ name: 'Grace' }),
    });
    await call('greeting', '/rest/greeting');
    await call('missing', '/rest/nowhere');
    await call('outside', '/status');
    expect(await session.stop()).toBe(0);
  });

  it('answers every call with what the target answered, and forwards it whole', () => {
    expect(answers['customer 42']).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: JSON.stringify({ id: 42, name: 'Customer 42', tags: ['vip'] }),
    });
    expect(answers.add.status).toBe(201);
    expect(JSON.parse(answers.add.body)).toEqual({ id: 3, name: 'Grace' });
    expect(answers.greeting.body).toBe('hello, world\n');
    expect(answers.missing.status).toBe(404);
    expect(answers.outside.status).toBe(404);
    const forwarded = upstream.calls.map((call) => `${call.method} ${call.url}`);
    expect(forwarded).toEqual(
      expect.arrayContaining([
        'GET /rest/customers/42?expand=tags',
        'GET /rest/customers',
        'POST /rest/customers',
        'GET /status',
      ]),
    );
    expect(upstream.calls.find((call) => call.method === 'POST')?.body).toBe('{"name":"Grace"}');
  });

  it('writes a new route: a service.yml with an id parameter and the body as a pretty-printed mock file', async () => {
    const dir = join(project, 'services/customers/customer');
    const service = await readService(join(dir, 'service.yml'));
    expect(service).toMatchObject({
      name: 'customer',
      style: 'RESOURCE',
      uriTemplate: '/customers/{customerId}',
      description: expect.stringMatching(/^Recorded from http:\/\/127\.0\.0\.1:\d+ on \d{4}-\d{2}-\d{2}$/),
    });
    expect(Object.keys(service.methods)).toEqual(['GET']);
    const get = service.methods.GET;
    expect(get.summary).toMatch(/^Recorded from http:\/\/127\.0\.0\.1:\d+ on \d{4}-\d{2}-\d{2}$/);
    expect(get.request?.parameters).toEqual([
      {
        name: 'customerId',
        kind: 'URL',
        required: true,
        type: 'string',
        summary: 'The customerId in the path',
        default: '42',
      },
    ]);
    expect(get.responses).toEqual([
      {
        name: 'OK',
        statusCode: 200,
        reason: 'OK',
        headers: [
          { field: 'Content-Type', content: 'application/json; charset=utf-8' },
          { field: 'Cache-Control', content: 'no-cache' },
          { field: 'X-Tenant', content: 'acme' },
        ],
        mockBody: 'getResource-responseBody.json',
      },
    ]);
    expect(await readFile(join(dir, 'getResource-responseBody.json'), 'utf8')).toBe(
      `${JSON.stringify({ id: 42, name: 'Customer 42', tags: ['vip'] }, null, 2)}\n`,
    );
    // /customers/43 is the same route: recorded once.
    expect(await readdir(dir)).toEqual(['getResource-responseBody.json', 'service.yml']);
  });

  it('writes a text body by its extension, and lists new services at the end of config.yml, comments kept', async () => {
    // services/greeting holds a service.yml already: the recorded one goes beside it.
    const greeting = await readService(join(project, 'services/greeting-2/service.yml'));
    expect(greeting).toMatchObject({ name: 'greeting-2', style: 'OPERATION', uriTemplate: '/greeting' });
    expect(greeting.methods.GET.responses[0].mockBody).toBe('getOperation-responseBody.txt');
    expect(await readFile(join(project, 'services/greeting-2/getOperation-responseBody.txt'), 'utf8')).toBe(
      'hello, world\n',
    );
    const config = await readFile(join(project, 'config.yml'), 'utf8');
    expect(config).toBe(
      before['config.yml'].replace('  - /customers\n', '  - /customers\n  - /customers/customer\n  - /greeting-2\n'),
    );
  });

  it('adds a method to the service.yml that describes the path, keeping its comments and layout', async () => {
    const text = await readFile(join(project, 'services/customers/service.yml'), 'utf8');
    // The file as it was, then the new method.
    expect(text.startsWith(CUSTOMERS_YML)).toBe(true);
    expect(text.slice(CUSTOMERS_YML.length)).toMatch(/^ {2}POST:\n {4}summary: Recorded from /);
    const post = (parse(text) as WrittenService).methods.POST;
    expect(post.request).toEqual({
      headers: [
        { field: 'Accept', content: 'application/json' },
        { field: 'Content-Type', content: 'application/json' },
      ],
    });
    expect(post.responses[0]).toMatchObject({
      statusCode: 201,
      reason: 'Created',
      headers: expect.arrayContaining([{ field: 'Location', content: '/rest/customers/3' }]),
      // postCollection-responseBody.json was there already.
      mockBody: 'postCollection-responseBody-2.json',
    });
    expect(
      JSON.parse(await readFile(join(project, 'services/customers/postCollection-responseBody-2.json'), 'utf8')),
    ).toEqual({
      id: 3,
      name: 'Grace',
    });
  });

  it('never changes a file it did not mean to edit, and leaves described routes alone', async () => {
    const after = await readTree(project);
    for (const [file, content] of Object.entries(before)) {
      if (file === 'config.yml' || file === 'services/customers/service.yml') continue;
      expect([file, after[file]]).toEqual([file, content]);
    }
    // GET /customers is described: forwarded, not recorded.
    expect(after['services/customers/getCollection-responseBody.json']).toBe(
      before['services/customers/getCollection-responseBody.json'],
    );
    expect(
      Object.keys(after)
        .filter((file) => !(file in before))
        .sort(),
    ).toEqual([
      'services/customers/customer/getResource-responseBody.json',
      'services/customers/customer/service.yml',
      'services/customers/postCollection-responseBody-2.json',
      'services/greeting-2/getOperation-responseBody.txt',
      'services/greeting-2/service.yml',
    ]);
    expect(Object.keys(after).some((file) => /\.tmp$/.test(file))).toBe(false);
  });

  it('logs one line per file written and a summary when it stops', () => {
    const wrote = session.log.filter((line) => line.action === 'created' || line.action === 'updated');
    // Sorted: a program that exits may flush its last log lines out of order.
    expect(wrote.map((line) => String(line.msg)).sort()).toEqual(
      [
        'created services/customers/customer/getResource-responseBody.json',
        'created services/customers/customer/service.yml',
        'updated config.yml',
        'created services/customers/postCollection-responseBody-2.json',
        'updated services/customers/service.yml',
        'created services/greeting-2/getOperation-responseBody.txt',
        'created services/greeting-2/service.yml',
        'updated config.yml',
      ].sort(),
    );
    const summary = session.log.find((line) => Array.isArray(line.routes)) ?? {};
    expect(summary.routes).toEqual(['GET /customers/{customerId}', 'POST /customers', 'GET /greeting']);
    expect(String(summary.msg)).toMatch(/^recorded 3 routes, 8 files written: /);
    expect(messages(session.log)).toContain(
      'GET /rest/nowhere: not recorded: the target answered 404 (only whole 2xx answers are recorded)',
    );
  });

  it('leaves a project that --check passes and the mock server serves with the recorded bodies', async () => {
    const check = await runMockMain(['--project', project, '--check']);
    expect(check.stderr).toBe('');
    expect(check.stdout).toMatch(/is valid: 3 services/);
    expect(check.code).toBe(0);
    const server = await serve(project);
    try {
      const customer = await fetch(`${server.url}/rest/customers/7`);
      expect(customer.status).toBe(200);
      expect(customer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(customer.headers.get('x-tenant')).toBe('acme');
      expect(customer.headers.get('etag')).toBeNull();
      expect(await customer.json()).toEqual({ id: 42, name: 'Customer 42', tags: ['vip'] });
      const added = await fetch(`${server.url}/rest/customers`, { method: 'POST', body: '{}' });
      expect(added.status).toBe(201);
      expect(added.headers.get('location')).toBe('/rest/customers/3');
      expect(await added.json()).toEqual({ id: 3, name: 'Grace' });
      const greeting = await fetch(`${server.url}/rest/greeting`);
      expect(greeting.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await greeting.text()).toBe('hello, world\n');
      // The described route answers as before: its own mock file.
      expect(await (await fetch(`${server.url}/rest/customers`)).json()).toEqual([{ id: 1, name: 'Ada' }]);
    } finally {
      await server.stop();
    }
  });
});

describe('restbus-mock record, secrets', () => {
  const callWhoami = async (session: Program): Promise<unknown> => {
    const response = await fetch(`${session.url}/rest/whoami`, {
      headers: { authorization: 'Bearer t0ken', cookie: 'sid=c00kie' },
    });
    expect(response.headers.get('set-cookie')).toBe('session=s3cr3t-session; Path=/; HttpOnly');
    return response.json();
  };

  it('forwards Authorization, Cookie and Set-Cookie but does not record them by default', async () => {
    const project = await newProject();
    const session = await record(project, upstream.url);
    expect(await callWhoami(session)).toEqual({ authorization: 'Bearer t0ken', query: '' });
    expect(await session.stop()).toBe(0);
    const text = await readFile(join(project, 'services/whoami/service.yml'), 'utf8');
    for (const secret of [
      't0ken',
      'c00kie',
      's3cr3t',
      'tok-123',
      'Authorization',
      'Cookie',
      'cookies',
      'X-Auth-Token',
    ]) {
      expect([secret, text.includes(secret)]).toEqual([secret, false]);
    }
    expect(messages(session.log)).toContain(
      'GET /rest/whoami: left out Authorization, Cookie, Set-Cookie, X-Auth-Token (--record-secrets records them)',
    );
  });

  it('records them with --record-secrets', async () => {
    const project = await newProject();
    const session = await record(project, upstream.url, '--record-secrets');
    await callWhoami(session);
    expect(await session.stop()).toBe(0);
    const get = (await readService(join(project, 'services/whoami/service.yml'))).methods.GET;
    expect(get.request).toEqual({
      cookies: [{ field: 'sid', content: 'c00kie' }],
      headers: [{ field: 'Authorization', content: 'Bearer t0ken' }],
    });
    expect(get.responses[0].cookies).toEqual([{ field: 'session', content: 's3cr3t-session' }]);
    expect(get.responses[0].headers).toEqual(expect.arrayContaining([{ field: 'X-Auth-Token', content: 'tok-123' }]));
  });

  it('records them when the environment says recordSecrets: true, with its target, started by its name', async () => {
    const project = await newProject(
      projectFiles(`  development: {}\n  recording:\n    record: { target: '${upstream.url}', recordSecrets: true }\n`),
    );
    const session = await startProgram(['recording', '--project', project], 'recording');
    await callWhoami(session);
    expect(await session.stop()).toBe(0);
    const get = (await readService(join(project, 'services/whoami/service.yml'))).methods.GET;
    expect(get.request?.headers).toEqual([{ field: 'Authorization', content: 'Bearer t0ken' }]);
  });
});

describe('restbus-mock record, limits and failures', () => {
  it('answers a JSON 502 with a code when the target does not answer, and writes nothing', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const project = await newProject();
    const before = await readTree(project);
    const session = await record(project, `http://127.0.0.1:${port}`);
    const response = await fetch(`${session.url}/rest/customers/42`);
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { code: string; error: string };
    expect(body.code).toBe('PROXY_FAILED');
    expect(body.error).toMatch(/ECONNREFUSED/);
    expect(await session.stop()).toBe(0);
    expect(await readTree(project)).toEqual(before);
    expect(messages(session.log)).toContain('recorded nothing');
  });

  it('records a route once when identical calls overlap', async () => {
    const project = await newProject();
    const session = await record(project, upstream.url);
    const bodies = await Promise.all(
      [7, 8, 7, 9, 7, 8].map(async (id) => (await fetch(`${session.url}/rest/orders/${id}`)).json()),
    );
    expect(bodies.map((body) => (body as { id: string }).id)).toEqual(['7', '8', '7', '9', '7', '8']);
    expect(await session.stop()).toBe(0);
    expect((await readdir(join(project, 'services/orders/order'))).sort()).toEqual([
      'getResource-responseBody.json',
      'service.yml',
    ]);
    const config = parse(await readFile(join(project, 'config.yml'), 'utf8')) as { services: string[] };
    expect(config.services).toEqual(['/customers', '/orders/order']);
  });

  it('records a compressed body decoded, and an empty one without a mock file', async () => {
    const project = await newProject();
    const session = await record(project, upstream.url);
    const compressed = await fetch(`${session.url}/rest/compressed`, { headers: { 'accept-encoding': 'gzip' } });
    expect(compressed.headers.get('content-encoding')).toBe('gzip');
    expect(await compressed.json()).toEqual({ packed: true });
    expect((await fetch(`${session.url}/rest/customers/5`, { method: 'DELETE' })).status).toBe(204);
    // Another method of the route recorded just before: added to its service.yml.
    expect((await fetch(`${session.url}/rest/customers/5`)).status).toBe(200);
    expect(await session.stop()).toBe(0);

    const get = (await readService(join(project, 'services/compressed/service.yml'))).methods.GET;
    expect(get.responses[0].headers).toEqual([{ field: 'Content-Type', content: 'application/json' }]);
    expect(await readFile(join(project, 'services/compressed/getOperation-responseBody.json'), 'utf8')).toBe(
      '{\n  "packed": true\n}\n',
    );
    const customer = await readService(join(project, 'services/customers/customer/service.yml'));
    expect(Object.keys(customer.methods)).toEqual(['DELETE', 'GET']);
    expect(customer.methods.DELETE.responses).toEqual([{ name: 'OK', statusCode: 204, reason: 'No Content' }]);
    expect(customer.methods.GET.responses[0].mockBody).toBe('getResource-responseBody.json');

    expect((await runMockMain(['--project', project, '--check'])).code).toBe(0);
    const server = await serve(project);
    try {
      expect((await fetch(`${server.url}/rest/customers/1`, { method: 'DELETE' })).status).toBe(204);
      expect(await (await fetch(`${server.url}/rest/compressed`)).json()).toEqual({ packed: true });
    } finally {
      await server.stop();
    }
  });

  it('forwards a body above 1 MiB whole and does not record it, with a warning', async () => {
    const project = await newProject();
    const session = await record(project, upstream.url);
    const response = await fetch(`${session.url}/rest/big`);
    expect((await response.text()).length).toBe(TWO_MIB);
    expect(await session.stop()).toBe(0);
    expect(existsSync(join(project, 'services/big'))).toBe(false);
    const warning = session.log.find((line) => line.level === 40);
    expect(warning?.msg).toBe(
      `GET /rest/big: not recorded: the body has ${TWO_MIB} bytes, more than the 1048576 a recorded body may have`,
    );
  });
});

describe("restbus-mock record's command line", () => {
  it('documents record mode in its help', async () => {
    const help = await runMockMain(['record', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: restbus-mock record [options] [environment]');
    expect(help.stdout).toContain('--target <url>');
    expect(help.stdout).toContain('--record-secrets');
    expect((await runMockMain(['--help'])).stdout).toContain('restbus-mock record --target <url>');
  });

  it('exits 2 without a target, or with one that is not an http URL', async () => {
    const project = await newProject();
    const none = await runMockMain(['record', '--project', project]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'restbus-mock: record mode needs a target: --target <url>, or record: { target: <url> } in the development environment of server/config.yml\n',
    );
    const ftp = await runMockMain(['record', '--project', project, '--target', 'ftp://example.com']);
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toContain('--target: must be an http:// or https:// URL');
  });

  it('takes an environment named record after --', async () => {
    const project = await newProject();
    const result = await runMockMain(['--project', project, '--check', '--', 'record']);
    expect(result.stderr).toContain('unknown environment "record"');
  });
});
