import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { waitFor } from '@restbus/infra/testing';
import { GATEWAY_MAIN, runGateway } from '../__tests__/run-gateway';

/**
 * The edge cases of -m through the program as users run it (issue 29, item 10): odd security schemes, header names
 * HTTP cannot carry, Prefer values naming prototype keys or interim statuses, and schemas whose sample cannot fit.
 * Before, `GET /grid` (nested arrays of 2,000 items) exhausted the heap and killed the gateway, and a scheme or a
 * header name could turn a GET into a 500 or 502.
 */
const ok = (content: unknown, headers?: unknown) => ({
  '200': { description: 'ok', content, ...(headers !== undefined && { headers }) },
});
const json = (schema: unknown) => ok({ 'application/json': { schema } });
const secured = (scheme: string) => ({
  get: { security: [{ [scheme]: [] }], responses: ok({ 'application/json': { example: scheme } }) },
});
const document = {
  openapi: '3.0.3',
  info: { title: 'edges', version: '1' },
  components: {
    securitySchemes: {
      empty: {},
      notype: { scheme: 'bearer' },
      noname: { type: 'apiKey', in: 'header' },
      cookie: { type: 'apiKey', in: 'cookie', name: 'sid' },
      emptyhttp: { type: 'http', scheme: '' },
      crlf: { type: 'apiKey', in: 'header', name: 'X-A\r\nB' },
      crlfquery: { type: 'apiKey', in: 'query', name: 'k\r\n"x' },
      protoheader: { type: 'apiKey', in: 'header', name: '__proto__' },
    },
  },
  paths: {
    ...Object.fromEntries(
      ['empty', 'notype', 'noname', 'cookie', 'emptyhttp', 'crlf', 'crlfquery', 'protoheader', 'undeclared'].map(
        (scheme) => [`/secured/${scheme}`, secured(scheme)],
      ),
    ),
    '/constructor': secured('constructor'),
    '/headers': {
      get: {
        responses: ok(
          { 'application/json': { example: { a: 1 } } },
          {
            PROTO: { schema: { type: 'string', example: 'proto' } },
            'X-Bad\r\nInjected': { schema: { type: 'string', example: 'v' } },
            'X-Value': { schema: { type: 'string', example: 'a\r\nSet-Cookie: stolen=1' } },
            'X-Fine': { schema: { type: 'string', example: 'fine' } },
          },
        ),
      },
    },
    '/named': {
      get: {
        responses: {
          '200': { description: 'ok', content: { 'application/json': { examples: { one: { value: 1 } } } } },
          '1XX': { description: 'interim' },
        },
      },
    },
    '/interim': { get: { responses: { '101': { description: 'switching' } } } },
    '/grid': {
      get: {
        responses: json({
          type: 'array',
          minItems: 2000,
          items: {
            type: 'array',
            minItems: 2000,
            items: { type: 'array', minItems: 2000, items: { type: 'integer' } },
          },
        }),
      },
    },
    '/many': { get: { responses: json({ type: 'array', minItems: 1e9, items: { type: 'string' } }) } },
    '/long': { get: { responses: json({ type: 'string', minLength: 4e8 }) } },
  },
};
// A header named __proto__, as a parsed document has it (an object literal would set the prototype instead).
const text = JSON.stringify(document).replace('"PROTO":', '"__proto__":');

let dir: string;
let gateway: { url: string; child: ChildProcess; stderr: string[]; exited: () => boolean };
/** What the gateway logged before it listened: the load's warnings. */
const startLog: Array<{ level?: number; msg?: string; path?: string }> = [];
// Hundreds of requests and programs started on a busy machine: the bound is a deadline ten times what a quiet one takes.
jest.setTimeout(300_000);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-mock-edges-'));
  await writeFile(join(dir, 'edges.json'), text);
  const child = spawn(process.execPath, [
    GATEWAY_MAIN,
    '-r',
    join(dir, 'edges.json'),
    '-m',
    '-p',
    '0',
    '--log-format',
    'json',
  ]);
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));
  // Every line is kept, also after the gateway listens: a warning may be written after that line.
  const listening = new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      startLog.push(entry);
      if (entry.msg === 'gateway listening') resolve(Number(entry.port));
    });
    child.on('exit', () => reject(new Error(`the gateway stopped before it listened: ${stderr.join('')}`)));
  });
  const port = await listening;
  gateway = { url: `http://127.0.0.1:${port}`, child, stderr, exited: () => exited };
});
afterAll(async () => {
  gateway?.child.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
});

/** Status, error code (when the body is an error), headers and body. */
async function ask(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}${path}`, { headers });
  const body = await response.text();
  const code = response.status >= 400 ? (JSON.parse(body) as { code?: string }).code : undefined;
  return { status: response.status, code, headers: response.headers, body };
}

describe('restbus-gateway -m on the edge cases of a document and of a request', () => {
  it('warns at start, and under --check -m, of each answer it cannot build as described, naming the path', async () => {
    // pino's level 40 is a warning; the diagnostic's message names the operation.
    const warned = (): string[] => startLog.filter(({ level }) => level === 40).map((entry) => JSON.stringify(entry));
    const paths = ['/grid', '/many', '/long', '/headers'];
    await waitFor(() => paths.every((path) => warned().some((line) => line.includes(path))), {
      what: `a warning naming each of ${paths.join(', ')}`,
      timeoutMs: 60_000,
    });
    const check = await runGateway(['--check', '-m', '-r', join(dir, 'edges.json')]);
    expect(check.code).toBe(0);
    for (const path of ['/grid', '/many', '/long']) expect(check.stdout).toContain(path);
    // Each placed in the file, as a loading diagnostic is: file:line:col.
    expect(check.stdout).toMatch(/edges\.json:1:\d+ {2}warning {2}paths\.\/many\.get/);
    // Without -m the mock's limits are nobody's business.
    const plain = await runGateway(['--check', '-r', join(dir, 'edges.json')]);
    expect(plain.stdout).not.toContain('/grid');
  });

  it('answers GET /grid (nested arrays of 2,000^3 items), which used to kill it, with 500 MOCK_UNAVAILABLE, never building it, and lives on', async () => {
    for (const path of ['/grid', '/many', '/long', '/grid']) {
      const answer = await ask(path);
      expect({ path, status: answer.status, code: answer.code }).toEqual({
        path,
        status: 500,
        code: 'MOCK_UNAVAILABLE',
      });
    }
    expect((await ask('/-/health')).status).toBe(200);
    expect(gateway.exited()).toBe(false);
  });

  it('answers every odd security scheme with 401 and a challenge, or lets the call through: never 500', async () => {
    const answers: Array<[string, number, string | null]> = [];
    for (const scheme of [
      'empty',
      'notype',
      'noname',
      'cookie',
      'emptyhttp',
      'crlf',
      'crlfquery',
      'protoheader',
      'undeclared',
    ]) {
      const answer = await ask(`/secured/${scheme}`);
      answers.push([scheme, answer.status, answer.headers.get('www-authenticate')]);
    }
    answers.push(['constructor', (await ask('/constructor')).status, null]);
    expect(answers).toEqual([
      ['empty', 200, null],
      ['notype', 200, null],
      ['noname', 200, null],
      ['cookie', 401, 'ApiKey in="cookie", name="sid"'],
      ['emptyhttp', 200, null],
      ['crlf', 200, null],
      ['crlfquery', 401, 'ApiKey in="query", name="k\\"x"'],
      ['protoheader', 401, 'ApiKey in="header", name="__proto__"'],
      ['undeclared', 200, null],
      ['constructor', 200, null],
    ]);
    expect((await ask('/secured/cookie', { cookie: 'sid=1' })).status).toBe(200);
  });

  it('leaves out the response headers HTTP cannot carry instead of failing the answer', async () => {
    const answer = await ask('/headers');
    expect([answer.status, answer.headers.get('x-fine'), answer.headers.get('__proto__')]).toEqual([
      200,
      'fine',
      'proto',
    ]);
    expect(answer.headers.get('set-cookie')).toBeNull();
  });

  it('answers Prefer: example=__proto__ or constructor, and code=1xx, 100, 101 or abc, with 400; never a 1xx', async () => {
    const answers: Array<[string, number, string | undefined]> = [];
    for (const prefer of ['example=__proto__', 'example=constructor', 'code=1xx', 'code=100', 'code=101', 'code=abc']) {
      const answer = await ask('/named', { prefer });
      answers.push([prefer, answer.status, answer.code]);
    }
    expect(answers.every(([, status, code]) => status === 400 && code === 'BAD_REQUEST')).toBe(true);
    expect((await ask('/interim')).status).toBe(200);
    const huge = `${Array.from({ length: 1500 }, (_, i) => `x${i}=y`).join(', ')}, example=one`;
    expect((await ask('/named', { prefer: huge })).status).toBe(200);
    expect(gateway.exited()).toBe(false);
  });
});
