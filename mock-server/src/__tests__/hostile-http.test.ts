import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  createSeededRandom,
  exchangeRaw,
  findErrorAnswerProblems,
  type RawExchange,
  recordHostileCounts,
} from '@restbus/infra/testing';
import type { MockServer } from '../server/start-mock-server';
import {
  createHostileMockRequests,
  createHostileTemplateRequests,
  HOSTILE_TEMPLATE,
  HOSTILE_TEMPLATE_MEMBERS,
  type HostileMockRequest,
  type HostileTemplateRequest,
} from './hostile-mock-requests';
import { sampleFiles, serveProject, shopConfig, writeProject } from './sample-project';

const REQUESTS = 300;
const BATCH = 25;
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
// The project's files and descriptors: only a request with the login may see them (isAlive, the open path, has
// none of them).
const PROJECT_CONTENT = [
  'some mock data',
  '"data":"created"',
  'no users',
  '<h1>',
  'data file',
  'console.log',
  'a,b',
  'uriTemplate',
  's3cret',
  'loginCredentials',
  'x-total-count',
  'last-list',
  'connect.sid',
];
// What the steps after the login answer (services, bodies, X-Mock-* headers, static folders): fine on the open
// path, a leak anywhere else.
const AFTER_LOGIN = [
  'x-application-api-version',
  '\r\nallow:',
  'X-Mock-',
  'JSON body',
  'nests deeper',
  'implementation',
  'nothing is served',
  'not served at',
];
// Bodies the project itself declares (the `Empty` response is a 404 with `{"error":"no users"}`): not the server's.
const DECLARED_BODIES = new Set(
  Object.entries(sampleFiles())
    .filter(([name]) => !name.endsWith('.yml'))
    .map(([, content]) => String(content)),
);

let project: string;
let open: MockServer;
let secured: MockServer;
let templateProject: string;
let templated: MockServer;

beforeAll(async () => {
  project = await writeProject(sampleFiles());
  const options = {
    watch: false,
    bodyLimit: 10_000,
    // Short, so that a client that stops sending is answered within the suite's time.
    limits: { headersTimeoutMs: 400, requestTimeoutMs: 400, keepAliveTimeoutMs: 400 },
  };
  open = await serveProject(project, options);
  secured = await serveProject(project, { ...options, environment: 'secured' });
  templateProject = await writeProject({
    'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n',
    'config.yml': shopConfig(['/shapes']),
    'services/shapes/service.yml': `name: Shapes
description: A template that shows request values everywhere
style: RESOURCE
uriTemplate: /shapes/{id}
methods:
  GET: { summary: Show, responses: [{ name: OK, statusCode: 200, reason: fine, mockBody: shape.json.hbs }] }
  POST: { summary: Show, responses: [{ name: OK, statusCode: 200, reason: fine, mockBody: shape.json.hbs }] }
`,
    'services/shapes/shape.json.hbs': HOSTILE_TEMPLATE,
  });
  templated = await serveProject(templateProject, { watch: false, strict: true });
});
afterAll(async () => {
  await open?.close();
  await secured?.close();
  await templated?.close();
  await rm(project, { recursive: true, force: true });
  await rm(templateProject, { recursive: true, force: true });
});

interface Finding {
  kind: 'crashes' | 'nonJson' | 'leaks';
  what: string;
}

/** Whether a request line's target may spell an open path (`/rest/monitoring`), in any encoding. */
function mayBeOpenPath(bytes: string): boolean {
  const target = bytes.split(/[\r\n]/)[0].split(' ')[1] ?? '';
  const decoded = target.replace(/%[0-9a-f]{2}/gi, (escape) => {
    try {
      return decodeURIComponent(escape);
    } catch {
      return escape;
    }
  });
  return decoded.toLowerCase().includes('monitoring');
}

/** What is wrong with one answer, by the rules every answer must keep; nothing when it is fine. */
function judge(exchange: RawExchange, request: HostileMockRequest, server: 'open' | 'secured'): Finding[] {
  if (exchange.timedOut) return [{ kind: 'crashes', what: 'no answer in time' }];
  // A client that ends its side before the answer has given up: Node closes the connection (no half-open HTTP).
  if (exchange.closedSilently) {
    return request.halfClose ? [] : [{ kind: 'crashes', what: 'closed without an answer' }];
  }
  // Interim answers (100 Continue) come before the final one.
  const text = exchange.text.replace(/^(HTTP\/1\.1 1\d\d [^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n)+/, '');
  const split = text.indexOf('\r\n\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) ([^\r\n]*)\r\n/.exec(text);
  if (!status || split < 0) {
    return [{ kind: 'nonJson', what: `not an HTTP response: ${JSON.stringify(text.slice(0, 80))}` }];
  }
  const code = Number(status[1]);
  const head = text.slice(0, split).toLowerCase();
  const body = Buffer.from(text.slice(split + 4), 'latin1').toString('utf8');
  const isHead = request.bytes.startsWith('HEAD ');
  const findings: Finding[] = [];
  for (const pattern of LEAKS) {
    if (pattern.test(body) || pattern.test(head))
      findings.push({ kind: 'leaks', what: `${pattern} in ${body.slice(0, 120)}` });
  }
  if (body.includes(REPO) || body.includes(project))
    findings.push({ kind: 'leaks', what: `a machine path in ${body.slice(0, 120)}` });
  if (code < 200 || code > 599) findings.push({ kind: 'nonJson', what: `final status ${code}` });
  if (server === 'open' && request.expectOpen !== undefined && code !== request.expectOpen) {
    findings.push({ kind: 'nonJson', what: `${code} where ${request.expectOpen} was due: ${body.slice(0, 120)}` });
  }
  if (server === 'secured' && !request.loggedIn) {
    const answer = `${head}\r\n\r\n${body}`.toLowerCase();
    const openPath = mayBeOpenPath(request.bytes);
    const seen = [...PROJECT_CONTENT, ...(openPath ? [] : AFTER_LOGIN)].find((marker) =>
      answer.includes(marker.toLowerCase()),
    );
    // Before the login only the HTTP layer and the path check answer: 400, 401, 405 (CONNECT), 408, 417, 431.
    const beforeLogin = [400, 401, 408, 417, 431].includes(code) || (code === 405 && /^connect /i.test(request.bytes));
    if (seen || (!beforeLogin && !openPath)) {
      findings.push({
        kind: 'leaks',
        what: `answered ${code} without login${seen ? ` with ${seen}` : ''}: ${body.slice(0, 120)}`,
      });
    }
  }
  if (code >= 400 && !DECLARED_BODIES.has(body)) {
    for (const what of findErrorAnswerProblems(code, status[2], head, body, isHead)) {
      findings.push({ kind: 'nonJson', what });
    }
  }
  return findings;
}

async function inBatches<T>(items: T[], run: (item: T) => Promise<Finding[]>): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (let i = 0; i < items.length; i += BATCH) {
    const results = await Promise.all(items.slice(i, i + BATCH).map(run));
    findings.push(...results.flat());
  }
  return findings;
}

const basic = `Basic ${Buffer.from('alice:s3cret:pass').toString('base64')}`;

interface TemplateFinding {
  kind: 'crashes' | 'invalidJson' | 'addedMembers' | 'wrongValues';
  what: string;
}

const sameKeys = (value: unknown, keys: string[]): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  JSON.stringify(Object.keys(value).sort()) === JSON.stringify([...keys].sort());

/** What is wrong with one rendering of the hostile template; nothing when it is JSON with the template's members. */
async function judgeTemplate(request: HostileTemplateRequest): Promise<TemplateFinding[]> {
  const response = await fetch(`${templated.url}${request.target}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  }).catch((err: unknown) => ({ failed: err }));
  if ('failed' in response) return [{ kind: 'crashes', what: String(response.failed) }];
  const text = await response.text();
  if (response.status !== 200) return [{ kind: 'crashes', what: `${response.status} ${text.slice(0, 200)}` }];
  let out: Record<string, unknown>;
  try {
    out = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    return [{ kind: 'invalidJson', what: `${(err as Error).message} in ${text.slice(0, 300)}` }];
  }
  const findings: TemplateFinding[] = [];
  const keyed = out.keyed as Record<string, unknown>;
  if (
    !sameKeys(out, HOSTILE_TEMPLATE_MEMBERS) ||
    !sameKeys(out.nested, ['inner', 'innerValue']) ||
    Object.keys(keyed ?? {}).length !== 1 ||
    !Array.isArray(out.list) ||
    // JSON.parse makes `__proto__` an own member: an object that is not plain has gained one.
    Object.getPrototypeOf(out) !== Object.prototype
  ) {
    findings.push({ kind: 'addedMembers', what: text.slice(0, 300) });
  }
  // A string value is shown exactly, wherever it is placed (a lone surrogate too: JSON carries it as an escape);
  // any value goes through `json` unchanged.
  if (request.name !== undefined) {
    const expected = JSON.parse(JSON.stringify(request.name)) as unknown;
    if (JSON.stringify(out.json) !== JSON.stringify(expected)) {
      findings.push({ kind: 'wrongValues', what: `json ${text.slice(0, 200)}` });
    }
    const name = request.name;
    const fromJsonText = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : undefined);
    if (
      typeof name === 'string' &&
      (out.name !== name || out.rawInString !== name || fromJsonText(out.jsonInString) !== name)
    ) {
      findings.push({ kind: 'wrongValues', what: `name ${text.slice(0, 200)}` });
    }
  }
  return findings;
}

describe('the mock server under hostile requests', () => {
  it('renders a JSON template into JSON that parses, with only its own members, whatever 400 requests send', async () => {
    const requests = createHostileTemplateRequests(createSeededRandom(20261126), 400);
    const findings: TemplateFinding[] = [];
    for (let i = 0; i < requests.length; i += BATCH) {
      const batch = requests.slice(i, i + BATCH);
      const results = await Promise.all(batch.map(judgeTemplate));
      results.forEach((found, j) =>
        findings.push(
          ...found.map((finding) => ({
            ...finding,
            what: `${batch[j].kind} ${batch[j].method} ${batch[j].target.slice(0, 80)} ${String(batch[j].body).slice(0, 80)}: ${finding.what}`,
          })),
        ),
      );
    }
    const count = (kind: TemplateFinding['kind']): number => findings.filter((finding) => finding.kind === kind).length;
    recordHostileCounts('mock-templates', {
      tried: { requests: requests.length },
      found: {
        crashes: count('crashes'),
        invalidJson: count('invalidJson'),
        addedMembers: count('addedMembers'),
        wrongValues: count('wrongValues'),
      },
    });
    expect({ invalidJson: count('invalidJson'), addedMembers: count('addedMembers') }).toEqual({
      invalidJson: 0,
      addedMembers: 0,
    });
    expect(findings.slice(0, 10)).toEqual([]);
  });

  it(`answers ${REQUESTS} malformed requests, with and without login, with valid responses and JSON errors, and keeps serving`, async () => {
    const requests = createHostileMockRequests(createSeededRandom(20261210), REQUESTS);
    const findings: Finding[] = [];
    for (const [name, server] of [
      ['open', open],
      ['secured', secured],
    ] as const) {
      findings.push(
        ...(await inBatches(requests, async (request) => {
          const exchange = await exchangeRaw(server.port, request.bytes, { halfClose: request.halfClose });
          return judge(exchange, request, name).map((finding) => ({
            ...finding,
            what: `${name} ${request.kind} ${JSON.stringify(request.bytes.slice(0, 80))}: ${finding.what}`,
          }));
        })),
      );
    }

    const users = await fetch(`${open.url}/rest/users`).catch(() => undefined);
    const securedUsers = await fetch(`${secured.url}/rest/users`, { headers: { authorization: basic } }).catch(
      () => undefined,
    );
    const alive = await fetch(`${secured.url}/rest/monitoring/isAlive`).catch(() => undefined);
    if (users?.status !== 200 || securedUsers?.status !== 200 || alive?.status !== 200) {
      findings.push({ kind: 'crashes', what: 'stopped serving' });
    }
    const count = (kind: Finding['kind']): number => findings.filter((finding) => finding.kind === kind).length;
    recordHostileCounts('mock-http', {
      tried: { requests: requests.length * 2 },
      found: { crashes: count('crashes'), nonJson: count('nonJson'), leaks: count('leaks') },
    });
    expect(findings.slice(0, 10)).toEqual([]);
    expect(await users?.json()).toEqual([
      { id: 1, data: 'some mock data' },
      { id: 2, data: 'more' },
    ]);
  });

  it.each([[`${30_001}`], ['99999999999'], ['-1'], ['NaN']])(
    'refuses X-Mock-Delay: %s at once with 400 instead of holding the answer',
    async (value) => {
      const exchange = await exchangeRaw(
        open.port,
        `GET /rest/users HTTP/1.1\r\nHost: h\r\nConnection: close\r\nX-Mock-Delay: ${value}\r\n\r\n`,
      );
      expect(exchange.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(exchange.text.slice(exchange.text.indexOf('\r\n\r\n') + 4))).toEqual({
        code: 'BAD_REQUEST',
        error: 'X-Mock-Delay must be a whole number of milliseconds from 0 to 30000',
      });
    },
  );
});
