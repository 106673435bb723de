import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, headers as natsHeaders, type NatsConnection } from 'nats';
import pino from 'pino';
import { createNatsLink, type NatsLink, type RequestMessage } from '@restbus/infra';
import {
  createSeededRandom,
  exchangeRaw,
  findErrorAnswerProblems,
  type RawExchange,
  recordHostileCounts,
  startNatsServer,
  type TestNatsServer,
} from '@restbus/infra/testing';
import { loadApi } from '../openapi/load-api';
import { createHostileMockRequests, createHostileRequests, MOCK_PATHS } from './hostile-requests';
import { createRogueReplies, type RogueReply } from './rogue-replies';
import { startTestGateway, testEndpoint, type TestGateway } from './start-test-gateway';

const REQUESTS = 300;
const REPLIES = 200;
const BATCH = 25;
// Hundreds of requests and programs started on a busy machine: the bound is a deadline ten times what a quiet one takes.
jest.setTimeout(300_000);
const REPO = resolve(__dirname, '../../..');
// A stack frame, a source position, Node's internals or a path of this machine: none belongs in an answer.
const LEAKS = [
  /\n\s*at\s/,
  /\bat \S+ \(/,
  /node:internal/,
  /node_modules/,
  /\.[jt]s:\d+/,
  /\/(home|root|usr|tmp|work)\//,
];

let nats: TestNatsServer;
let link: NatsLink;
let service: NatsConnection;
let gateway: TestGateway;
let port: number;
const rogue: RogueReply[] = [];
const GOOD_REPLY: RogueReply = { kind: 'good', payload: '{"status":200,"body":{"ok":true}}', headers: {} };
/** Replies the responder could not send (NATS refused them): the generator's mistakes, not the gateway's. */
const unsent: string[] = [];

beforeAll(async () => {
  nats = await startNatsServer({ maxPayload: 4 * 1024 * 1024 });
  link = createNatsLink({ servers: nats.url, name: 'hostile', logger: pino({ level: 'silent' }) });
  await link.ready();
  service = await connect({ servers: nats.url });
  // The rogue responder answers case N of the list with reply N; the other endpoints answer like a good service.
  service.subscribe('easer.get_/rogue', {
    callback: (_err, msg) => {
      // A hostile request may reach this subject too: it gets a good reply.
      const reply = rogue[Number(msg.json<RequestMessage>().request.headers['x-case'])] ?? GOOD_REPLY;
      try {
        const headers = natsHeaders();
        for (const [name, value] of Object.entries(reply.headers)) headers.set(name, value);
        msg.respond(reply.payload, { headers });
      } catch (err) {
        unsent.push(`${reply.kind}: ${String(err)}`);
      }
    },
  });
  for (const subject of ['easer.get_/items', 'easer.post_/items', 'easer.put_/items/{id}']) {
    service.subscribe(subject, { callback: (_err, msg) => msg.respond('{"status":200,"body":{"ok":true}}') });
  }
  await service.flush();
  gateway = await startTestGateway(
    [
      testEndpoint('get', '/items'),
      testEndpoint('post', '/items'),
      testEndpoint('put', '/items/{id}'),
      testEndpoint('get', '/rogue'),
    ],
    {
      link,
      bodyLimit: 4096,
      timeoutMs: 1000,
      // Short, so that a client that stops sending is answered within the suite's time; long enough that a request
      // sent whole is read in time on a busy machine (400 ms gave a 408 to one under a load of 20 on 2 cores).
      limits: { headersTimeoutMs: 2000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 2000 },
    },
  );
  port = Number(new URL(gateway.url).port);
});
afterAll(async () => {
  await gateway?.close();
  await link?.drain();
  await service?.close();
  await nats?.dispose();
});

interface Finding {
  kind: 'crashes' | 'nonJson' | 'leaks';
  what: string;
}

/** What is wrong with one answer, by the rules every answer must keep; nothing when it is fine. */
function judge(
  exchange: RawExchange,
  options: { requestId?: string; isHead?: boolean; gaveUp?: boolean } = {},
): Finding[] {
  const { requestId, isHead, gaveUp } = options;
  if (exchange.timedOut) return [{ kind: 'crashes', what: 'no answer in time' }];
  // A client that ends its side before the answer has given up: Node closes the connection (no half-open HTTP).
  if (exchange.closedSilently) return gaveUp ? [] : [{ kind: 'crashes', what: 'closed without an answer' }];
  // Interim answers (100 Continue) come before the final one.
  const text = exchange.text.replace(/^(HTTP\/1\.1 1\d\d [^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n)+/, '');
  const split = text.indexOf('\r\n\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) ([^\r\n]*)\r\n/.exec(text);
  if (!status || split < 0)
    return [{ kind: 'nonJson', what: `not an HTTP response: ${JSON.stringify(text.slice(0, 80))}` }];
  const code = Number(status[1]);
  const head = text.slice(0, split).toLowerCase();
  const body = Buffer.from(text.slice(split + 4), 'latin1').toString('utf8');
  const findings: Finding[] = [];
  for (const pattern of LEAKS) {
    if (pattern.test(body) || body.includes(REPO))
      findings.push({ kind: 'leaks', what: `${pattern} in ${body.slice(0, 120)}` });
  }
  if (code < 200 || code > 599) findings.push({ kind: 'nonJson', what: `final status ${code}` });
  if (code >= 400) {
    for (const what of findErrorAnswerProblems(code, status[2], head, body, isHead === true)) {
      findings.push({ kind: 'nonJson', what });
    }
    // A response to HEAD has the headers of the answer and no body.
    if (isHead) return findings;
  }
  // The gateway's own request id wins over anything a reply says.
  if (requestId && !head.includes(`\r\nx-request-id: ${requestId}\r\n`)) {
    findings.push({ kind: 'nonJson', what: `${code} without the request id ${requestId}` });
  }
  return findings;
}

async function inBatches<T>(items: T[], run: (item: T, index: number) => Promise<Finding[]>): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (let i = 0; i < items.length; i += BATCH) {
    const results = await Promise.all(items.slice(i, i + BATCH).map((item, j) => run(item, i + j)));
    findings.push(...results.flat());
  }
  return findings;
}

describe('the gateway under hostile requests and rogue replies', () => {
  it(`answers ${REQUESTS} malformed requests and ${REPLIES} rogue replies with JSON errors or valid responses, and keeps serving`, async () => {
    const requests = createHostileRequests(createSeededRandom(20261209), REQUESTS);
    rogue.push(...createRogueReplies(createSeededRandom(1209), REPLIES));

    const requestFindings = await inBatches(requests, async (request) => {
      const exchange = await exchangeRaw(port, request.bytes, { halfClose: request.halfClose, timeoutMs: 30_000 });
      return judge(exchange, { isHead: request.bytes.startsWith('HEAD '), gaveUp: request.halfClose }).map(
        (finding) => ({
          ...finding,
          what: `${request.kind} ${JSON.stringify(request.bytes.slice(0, 60))}: ${finding.what}`,
        }),
      );
    });
    const replyFindings = await inBatches(rogue, async (reply, index) => {
      const requestId = `case-${index}`;
      const raw = `GET /rogue HTTP/1.1\r\nHost: h\r\nX-Case: ${index}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n`;
      return judge(await exchangeRaw(port, raw, { timeoutMs: 30_000 }), { requestId }).map((finding) => ({
        ...finding,
        what: `${reply.kind} ${JSON.stringify(String(reply.payload).slice(0, 60))}: ${finding.what}`,
      }));
    });

    const health = await fetch(`${gateway.url}/-/health`).catch(() => undefined);
    const normal = await fetch(`${gateway.url}/items`).catch(() => undefined);
    const findings = [...requestFindings, ...replyFindings];
    if (health?.status !== 200 || normal?.status !== 200) findings.push({ kind: 'crashes', what: 'stopped serving' });
    const count = (kind: Finding['kind']): number => findings.filter((finding) => finding.kind === kind).length;
    recordHostileCounts('gateway', {
      tried: { requests: requests.length, replies: rogue.length },
      found: { crashes: count('crashes'), nonJson: count('nonJson'), leaks: count('leaks') },
    });
    expect(unsent).toEqual([]);
    expect(findings.slice(0, 10)).toEqual([]);
    expect(await normal?.json()).toEqual({ ok: true });
    expect(gateway.gateway.inFlight()).toBe(0);
  });
});

/** The -m document of the hostile suite: the edge cases of item 10 of issue 29, and schemas past the sample bound. */
function createHostileMockDocument(): string {
  const ok = (content: unknown, headers?: unknown) => ({
    '200': { description: 'ok', content, ...(headers !== undefined && { headers }) },
  });
  const secured = (scheme: string) => ({
    get: { security: [{ [scheme]: [] }], responses: ok({ 'application/json': { example: scheme } }) },
  });
  const sampled = (schema: unknown) => ({ get: { responses: ok({ 'application/json': { schema } }) } });
  const types = Array.from({ length: 400 }, (_, i) => `application/t${i}+json`);
  const document = {
    openapi: '3.0.3',
    info: { title: 'hostile mock', version: '1' },
    components: {
      securitySchemes: {
        empty: {},
        cookie: { type: 'apiKey', in: 'cookie', name: 'sid' },
        crlf: { type: 'apiKey', in: 'header', name: 'X-A\r\nB' },
        query: { type: 'apiKey', in: 'query', name: 'k\r\n"x' },
        proto: { type: 'apiKey', in: 'header', name: '__proto__' },
      },
    },
    paths: {
      ...Object.fromEntries(
        ['empty', 'cookie', 'crlf', 'query', 'proto', 'undeclared'].map((name) => [`/secured/${name}`, secured(name)]),
      ),
      '/named': {
        get: {
          responses: {
            '200': { description: 'ok', content: { 'application/json': { examples: { one: { value: 1 } } } } },
            '404': { description: 'none', content: { 'application/json': { example: { error: 'none' } } } },
            '1XX': { description: 'interim' },
          },
        },
      },
      '/interim': { get: { responses: { '101': { description: 'switching' } } } },
      '/headers': {
        get: {
          responses: ok(
            { 'application/json': { example: { a: 1 } } },
            {
              PROTO: { schema: { type: 'string', example: 'proto' } },
              'X-Bad\r\nInjected': { schema: { type: 'string', example: 'v' } },
              'X-Value': { schema: { type: 'string', example: 'a\r\nSet-Cookie: stolen=1' } },
            },
          ),
        },
      },
      '/types': { get: { responses: ok(Object.fromEntries(types.map((type) => [type, { example: type }]))) } },
      '/grid': sampled({
        type: 'array',
        minItems: 2000,
        items: { type: 'array', minItems: 2000, items: { type: 'array', minItems: 2000, items: { type: 'integer' } } },
      }),
      '/many': sampled({ type: 'array', minItems: 1e9, items: { type: 'string' } }),
      '/long': sampled({ type: 'string', minLength: 4e8 }),
      '/unique': {
        post: {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'array', uniqueItems: true } } },
          },
          responses: { '204': { description: 'stored' } },
        },
      },
    },
  };
  // A header named __proto__, as a parsed document has it.
  return JSON.stringify(document).replace('"PROTO":', '"__proto__":');
}

describe('the gateway with -m and --validate under hostile requests and a hostile document', () => {
  const MOCK_REQUESTS = 360;
  let dir: string;
  let mock: TestGateway;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'restbus-hostile-mock-'));
    await writeFile(join(dir, 'hostile.json'), createHostileMockDocument());
    mock = await startTestGateway(await loadApi(join(dir, 'hostile.json')), {
      mock: true,
      validate: true,
      bodyLimit: 1024 * 1024,
      limits: { headersTimeoutMs: 2000, requestTimeoutMs: 4000 },
    });
  });
  afterAll(async () => {
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(`answers ${MOCK_REQUESTS} odd Prefer, Accept, credentials and bodies with 2xx or 4xx (500 MOCK_UNAVAILABLE only past the sample bound), without a crash or a disconnect`, async () => {
    const requests = createHostileMockRequests(createSeededRandom(29_10), MOCK_REQUESTS);
    const port = Number(new URL(mock.url).port);
    // How long a request held the event loop is no assertion here (issue 45): the paths that could hold it are
    // counted in the cost tests (mock-paths.cost.test.ts, create-request-validator.cost.test.ts), and their stalls are
    // figures of `npm run bench:cost`. This test asserts the outcome of each request.
    const found = { crashes: 0, disconnects: 0, serverErrors: 0, nonJson: 0, leaks: 0 };
    const examples: string[] = [];
    for (let i = 0; i < requests.length; i += 8) {
      await Promise.all(
        requests.slice(i, i + 8).map(async (request) => {
          // A generous deadline: ten times what the slowest request takes on a quiet machine, and more.
          const exchange = await exchangeRaw(port, request.bytes, { timeoutMs: 30_000 });
          const what = `${request.kind} ${JSON.stringify(request.bytes.slice(0, 80))}`;
          const note = (kind: keyof typeof found, why: string): void => {
            found[kind] += 1;
            if (examples.length < 10) examples.push(`${kind}: ${what}: ${why}`);
          };
          if (exchange.timedOut) return note('crashes', 'no answer in time');
          if (exchange.closedSilently) return note('disconnects', 'closed without an answer');
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(exchange.text)?.[1]);
          const path = / (\/[^ ?]*)/.exec(request.bytes)?.[1] ?? '';
          const isHead = request.bytes.startsWith('HEAD ');
          for (const finding of judge(exchange, { isHead }))
            note(finding.kind === 'leaks' ? 'leaks' : 'nonJson', finding.what);
          if (status >= 500) {
            const tooLarge = (MOCK_PATHS.tooLarge as readonly string[]).includes(path);
            const code = /"code":"([A-Z_]+)"/.exec(exchange.text)?.[1];
            if (!tooLarge || status !== 500 || (!isHead && code !== 'MOCK_UNAVAILABLE')) {
              note('serverErrors', `${status} ${code ?? ''}`);
            }
          }
        }),
      );
    }
    const health = await fetch(`${mock.url}/-/health`).catch(() => undefined);
    if (health?.status !== 200) found.crashes += 1;
    recordHostileCounts('gateway -m', {
      tried: { requests: requests.length, documents: 1 },
      found,
    });
    expect(examples).toEqual([]);
    expect(found).toEqual({ crashes: 0, disconnects: 0, serverErrors: 0, nonJson: 0, leaks: 0 });
  });
});
