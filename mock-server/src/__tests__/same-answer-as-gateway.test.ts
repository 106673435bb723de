import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { rm } from 'node:fs/promises';
import { REQUEST_MISTAKES, refuseRequest, type RequestMistake, type RequestMistakeName } from '@restbus/infra';
import { shopConfig, writeProject } from './sample-project';
import { startMockProgram, type RunningMockProgram } from './start-mock-program';

// The gateway as users run it, built beside this package (jest's global setup builds every workspace).
const GATEWAY_MAIN = resolve(__dirname, '../../../gateway/dist/main.js');
const BODY_LIMIT = 4096;

/** One API, said twice: as an OpenAPI document for `restbus-gateway -m --validate`, as a project for restbus-mock. */
const openapi = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'shop', version: '1' },
  components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
  paths: {
    '/rest/customers': {
      get: {
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
        responses: { '200': { description: 'the customers', content: { 'application/json': { example: [] } } } },
      },
      post: {
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
              },
            },
          },
        },
        responses: { '201': { description: 'added', content: { 'application/json': { example: { id: 1 } } } } },
      },
    },
    '/rest/private': {
      get: {
        security: [{ basic: [] }],
        responses: { '200': { description: 'a secret', content: { 'application/json': { example: {} } } } },
      },
    },
  },
});

const project = {
  'server/config.yml': `environments:
  default:
    restapiRoot: ..
    requireLogin: true
    openPaths: [/rest/customers, /rest/nothing]
`,
  'config.yml': `${shopConfig(['/customers', '/private'])}loginCredentials: { user: alice, pass: secret }\n`,
  'services/customers/service.yml': `name: Customers
description: The customers
style: COLLECTION
uriTemplate: /customers
methods:
  GET:
    summary: List
    request:
      parameters:
        - { name: limit, kind: QUERY, type: integer, required: false, summary: page size }
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: list.json }
  POST:
    summary: Add
    request:
      validationSchema: customer-schema.json
    responses:
      - { name: OK, statusCode: 201, reason: added, mockBody: added.json }
`,
  'services/customers/list.json': '[]\n',
  'services/customers/added.json': '{"id":1}\n',
  'services/customers/customer-schema.json': JSON.stringify({
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
  }),
  'services/private/service.yml': `name: Private
description: A secret
style: OPERATION
uriTemplate: /private
methods:
  GET:
    summary: Read
    responses:
      - { name: OK, statusCode: 200, reason: fine }
`,
};

interface Call {
  method: string;
  /** Sent exactly as written (fetch would normalise it). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { code?: string; problems?: unknown };
}

function send(base: string, call: Call): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((done, failed) => {
    const req = request(
      { host: hostname, port, path: call.path, method: call.method, headers: call.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          done({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text ? (JSON.parse(text) as Answer['body']) : {},
          });
        });
      },
    );
    req.on('error', failed);
    req.end(call.body);
  });
}

const post = (body: string | Buffer, type = 'application/json'): Call => ({
  method: 'POST',
  path: '/rest/customers',
  headers: { 'content-type': type },
  body,
});
const get = (path: string): Call => ({ method: 'GET', path });

/** restbus-gateway -m --validate on a free port; resolves once it listens. */
async function startGateway(file: string): Promise<{ url: string; child: ChildProcess }> {
  if (!existsSync(GATEWAY_MAIN))
    throw new Error(`${GATEWAY_MAIN} is missing: build the gateway first (npx tsc -b gateway)`);
  const args = ['-r', file, '-m', '--validate', '-p', '0', '--bodyLimit', String(BODY_LIMIT), '--log-format', 'json'];
  const child = spawn(process.execPath, [GATEWAY_MAIN, ...args]);
  for await (const line of createInterface({ input: child.stdout })) {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg === 'gateway listening') return { url: `http://127.0.0.1:${entry.port}`, child };
  }
  throw new Error('the gateway stopped before it listened');
}

let dir: string | undefined;
let gateway: { url: string; child: ChildProcess } | undefined;
let mock: RunningMockProgram | undefined;
beforeAll(async () => {
  dir = await writeProject({ ...project, 'shop.openapi.json': openapi });
  [gateway, mock] = await Promise.all([
    startGateway(join(dir, 'shop.openapi.json')),
    startMockProgram(['--project', dir, '--no-watch', '--validate', '--body-limit', String(BODY_LIMIT)]),
  ]);
});
afterAll(async () => {
  gateway?.child.kill('SIGKILL');
  await mock?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** What both servers answer a call: [gateway, mock server]. */
const askBoth = (call: Call): Promise<Answer[]> => Promise.all([send(gateway!.url, call), send(mock!.url, call)]);

const mistakes: Array<[string, RequestMistakeName, Call]> = [
  ['malformed JSON', 'malformedJson', post('{"name": ')],
  [
    'JSON that is not UTF-8',
    'malformedJson',
    post(Buffer.from('{"name":"Jos\xe9"}', 'latin1'), 'application/json; charset=iso-8859-1'),
  ],
  ['JSON nested deeper than 64 levels', 'jsonTooDeep', post(`{"name":${'['.repeat(65)}${']'.repeat(65)}}`)],
  ['a JSON body sent as text', 'notJson', post('{"name":"Ada"}', 'text/plain')],
  ['a JSON body sent as XML', 'notJson', post('<name>Ada</name>', 'application/xml')],
  ['a body over the body limit', 'bodyTooLarge', post(JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) }))],
  ['a malformed percent-encoding in the path', 'malformedPath', get('/rest/customers/%ZZ')],
  ['a method the path does not have', 'methodNotAllowed', { method: 'DELETE', path: '/rest/customers' }],
  ['a path nothing is served at', 'notFound', get('/rest/nothing')],
  ['no credentials where they are needed', 'credentialsMissing', get('/rest/private')],
  ['a query that breaks its description', 'notAsDescribed', get('/rest/customers?limit=many')],
  ['a well-formed body that breaks its description', 'notAsDescribed', post('{"name":7}')],
  ['a body value that breaks its format', 'notAsDescribed', post('{"name":"Ada","email":"nobody"}')],
];

describe('the gateway (-m --validate) and the mock server (--validate) on the same API', () => {
  it.each(mistakes)('answer %s with the same status and code, the shared table’s', async (_what, name, call) => {
    const expected = refuseRequest(name);
    const answers = await askBoth(call);
    expect(answers.map(({ status, body }) => [status, body.code])).toEqual([
      [expected.status, expected.code],
      [expected.status, expected.code],
    ]);
    const { problem } = REQUEST_MISTAKES[name] as RequestMistake;
    if (problem) for (const { body } of answers) expect(body.problems).toEqual([problem]);
  });

  it('name what would do: the methods there are in Allow, the credentials in WWW-Authenticate', async () => {
    const [notAllowed, unauthorized] = await Promise.all([
      askBoth({ method: 'DELETE', path: '/rest/customers' }),
      askBoth(get('/rest/private')),
    ]);
    for (const answer of notAllowed)
      expect(String(answer.headers.allow).split(/, */)).toEqual(expect.arrayContaining(['GET', 'POST']));
    for (const answer of unauthorized) expect(answer.headers['www-authenticate']).toMatch(/^Basic\b/i);
  });

  it('name the same problem of a body value that breaks its format, and take one that keeps it', async () => {
    const refused = await askBoth(post('{"name":"Ada","email":"nobody"}'));
    for (const { body } of refused) {
      expect(body.problems).toEqual([{ location: 'body/email', message: 'must match format "email"' }]);
    }
    const taken = await askBoth(post('{"name":"Ada","email":"ada@example.com"}'));
    expect(taken.map((answer) => answer.status)).toEqual([201, 201]);
  });

  it('read a JSON body as UTF-8 whatever charset its Content-Type names, as the services do', async () => {
    const answers = await askBoth(post('{"name":"Ada"}', 'application/json; charset=klingon'));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
  });
});
