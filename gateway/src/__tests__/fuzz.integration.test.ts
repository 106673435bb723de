import pino from 'pino';
import { createNatsLink, type NatsLink } from '@restbus/infra';
import { type RawResponse, sendRaw, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startTestGateway, testEndpoint, type TestGateway } from './start-test-gateway';

// Every answer must be one of the gateway's documented failures.
const TABLE = new Set([400, 404, 405, 408, 413, 431, 501, 502, 503, 504]);
const COUNT = 2400;

let server: TestNatsServer;
let link: NatsLink;
let gateway: TestGateway;
let port: number;

beforeAll(async () => {
  server = await startNatsServer();
  link = createNatsLink({ servers: server.url, name: 'fuzz', logger: pino({ level: 'silent' }) });
  await link.ready();
  // No service answers: a request that gets through routing is forwarded and answered 503.
  gateway = await startTestGateway(
    [testEndpoint('get', '/items'), testEndpoint('post', '/items'), testEndpoint('put', '/items/{id}')],
    {
      link,
      bodyLimit: 1024,
    },
  );
  port = Number(new URL(gateway.url).port);
});
afterAll(async () => {
  await gateway?.close();
  await link?.drain();
  await server?.dispose();
});

/** A small seeded generator, so that a failing case can be replayed. */
function createRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

function createCases(random: () => number): Array<{ kind: string; bytes: string }> {
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
  const junk = (length: number): string =>
    Array.from({ length }, () => String.fromCharCode(33 + Math.floor(random() * 94))).join('');
  const request = (method: string, path: string, headers: string[] = [], body = ''): string =>
    [
      `${method} ${path} HTTP/1.1`,
      'Host: fuzz',
      'Connection: close',
      ...headers,
      ...(body ? [`Content-Length: ${Buffer.byteLength(body)}`] : []),
      '',
      body,
    ].join('\r\n');
  const makers: Record<string, () => string> = {
    'bad path': () =>
      request(
        'GET',
        pick([
          '/%',
          '/items/%ZZ',
          '/../../etc/passwd',
          '//',
          `/${'a/'.repeat(2000)}`,
          '/items?%%%=&&',
          `/${junk(40)}`,
          '/items/%E0%A4%A',
        ]),
      ),
    'huge headers': () => request('GET', '/items', [`X-Big: ${'x'.repeat(20_000 + Math.floor(random() * 20_000))}`]),
    'invalid json': () =>
      request('POST', '/items', ['Content-Type: application/json'], pick(['{', '{"a":', '[1,2', 'nul', junk(50)])),
    'odd method': () =>
      request(
        pick(['FOO', 'PROPFIND', 'TRACE', 'PATCH', 'DELETE', 'MKCOL', 'BREW', 'CONNECT']),
        pick(['/items', '/items/1', 'fuzz:443']),
      ),
    'wrong content type': () =>
      request(
        'PUT',
        '/items/7',
        [
          `Content-Type: ${pick(['text/xml', 'application/x-www-form-urlencoded', 'image/png', ';;;', 'multipart/form-data; boundary='])}`,
        ],
        junk(30),
      ),
    'oversize body': () =>
      request(
        'POST',
        '/items',
        ['Content-Type: application/json'],
        `"${'y'.repeat(2000 + Math.floor(random() * 6000))}"`,
      ),
    'broken request line': () =>
      pick([
        'GET\r\n\r\n',
        `${junk(20)}\r\n\r\n`,
        'GET /items HTTP/9.9\r\nConnection: close\r\n\r\n',
        'GET /items\r\n\r\n',
      ]),
    'bad header': () =>
      request('GET', '/items', [
        pick(['Bad Header: x', 'X-Ctl: a\u0001b', ': empty', 'Content-Length: -1', 'Content-Length: abc']),
      ]),
    'broken chunks': () =>
      [
        'POST /items HTTP/1.1',
        'Host: fuzz',
        'Connection: close',
        'Transfer-Encoding: chunked',
        '',
        'zz\r\nnope\r\n0\r\n\r\n',
      ].join('\r\n'),
  };
  const kinds = Object.keys(makers);
  return Array.from({ length: COUNT }, (_, i) => {
    const kind = kinds[i % kinds.length];
    return { kind, bytes: makers[kind]() };
  });
}

describe('a gateway fed malformed requests', () => {
  it(`answers each of ${COUNT} with a JSON error from the table, and stays healthy`, async () => {
    const cases = createCases(createRandom(20261121));
    const failures: string[] = [];
    const seen = new Map<string, Set<number>>();
    for (let i = 0; i < cases.length; i += 16) {
      const batch = cases.slice(i, i + 16);
      const responses = await Promise.all(batch.map((item) => sendRaw(port, item.bytes).catch((err: Error) => err)));
      responses.forEach((response, j) => {
        const { kind, bytes } = batch[j];
        const problem = describeProblem(response);
        if (problem) failures.push(`${kind}: ${problem} for ${JSON.stringify(bytes.slice(0, 60))}`);
        else seen.set(kind, (seen.get(kind) ?? new Set()).add((response as RawResponse).status));
      });
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(seen.size).toBe(9);
    const health = await fetch(`${gateway.url}/-/health`);
    expect(health.status).toBe(200);
    expect((await fetch(`${gateway.url}/items`)).status).toBe(503);
    expect(gateway.gateway.inFlight()).toBe(0);
  });
});

function describeProblem(response: RawResponse | Error): string | undefined {
  if (response instanceof Error) return response.message;
  if (!TABLE.has(response.status)) return `status ${response.status}`;
  if (!response.headers['content-type']?.startsWith('application/json'))
    return `content type ${response.headers['content-type']}`;
  try {
    const body = JSON.parse(response.body) as { error?: unknown; code?: unknown };
    if (typeof body.error !== 'string' || typeof body.code !== 'string') return `body ${response.body}`;
  } catch {
    return `body not JSON: ${response.body.slice(0, 80)}`;
  }
  return undefined;
}
