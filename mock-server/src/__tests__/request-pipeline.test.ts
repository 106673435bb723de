import { rm } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { createLogger } from '@restbus/infra';
import type { MockServer } from '../server/start-mock-server';
import { rawGet } from './raw-get';
import { sampleFiles, serveProject, writeProject } from './sample-project';

// The sample project, plus an implementation that sends a file that is not there, and a descriptor whose
// response declares headers about the connection and the framing of the body.
const files = (): ReturnType<typeof sampleFiles> => {
  const sample = sampleFiles();
  return {
    ...sample,
    'config.yml': `${sample['config.yml'] as string}  - /files\n  - /framed\n`,
    'server/files.js': `exports.missing = (request, response) => response.sendFile('/nonexistent/secret-folder/report.txt');\n`,
    'services/files/service.yml': `name: Files
description: sends a file
uriTemplate: /files
methods:
  GET:
    summary: a file that is not there
    implementation: files.missing
    responses: [{ name: OK, statusCode: 200, reason: fine }]
`,
    'services/framed/service.yml': `name: Framed
description: declares framing headers
uriTemplate: /framed
methods:
  GET:
    summary: x
    responses:
      - name: OK
        statusCode: 200
        reason: fine
        headers:
          - { field: Transfer-Encoding, content: chunked }
          - { field: Connection, content: close }
          - { field: Keep-Alive, content: timeout=99 }
          - { field: X-Kept, content: yes }
`,
  };
};

let project: string;
let server: MockServer;
let secured: MockServer;
const logged: string[] = [];

beforeAll(async () => {
  project = await writeProject(files());
  const logger = createLogger({
    name: 'test',
    level: 'debug',
    format: 'json',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString());
        done();
      },
    }),
  });
  server = await serveProject(project, { watch: false, logger });
  secured = await serveProject(project, { environment: 'secured', watch: false });
});
afterAll(async () => {
  await server.close();
  await secured.close();
  await rm(project, { recursive: true, force: true });
});

const post = (base: string, path: string, body: string): Promise<Response> =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('the request pipeline of the mock server', () => {
  it('does not read a body that no route takes: a malformed one to a path nothing serves is a 404, not a 400', async () => {
    const response = await post(server.url, '/nothing/here', '{"broken": ');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('asks for the login before it reads a body', async () => {
    const response = await post(secured.url, '/rest/users', '{"broken": ');
    expect(response.status).toBe(401);
  });

  it('refuses a JSON body nested deeper than 64 levels with 400, before parsing it', async () => {
    const response = await post(server.url, '/rest/users', `${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'the body nests deeper than 64 levels',
      code: 'REQUEST_INVALID',
      problems: [{ location: 'body', message: 'nests deeper than 64 levels' }],
    });
    const fine = await post(server.url, '/rest/users', `{"deep": ${'['.repeat(60)}${']'.repeat(60)}}`);
    expect(fine.status).toBe(201);
  });

  it('answers a file an implementation sends that is not there with 404 JSON, naming no path, and keeps serving', async () => {
    const response = await rawGet(server.url, '/rest/files');
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toEqual({ error: 'nothing is served at this path', code: 'NOT_FOUND' });
    expect(response.body).not.toContain('nonexistent');
    expect((await rawGet(server.url, '/rest/monitoring/isAlive')).body).toBe('true\n');
  });

  it('keeps what failed in an implementation in the log, under the id the client got', async () => {
    const response = await fetch(`${server.url}/rest/broken/x`);
    const { error } = (await response.json()) as { error: string };
    const id = /failure ([0-9a-f-]{36})/.exec(error)?.[1];
    expect(id).toBeDefined();
    const line = logged.find((entry) => entry.includes(id as string));
    expect(line).toContain('boom');
  });

  it('leaves out the headers about the connection and framing a descriptor declares, and sends the others', async () => {
    const response = await rawGet(server.url, '/rest/framed');
    expect(response.status).toBe(200);
    expect(response.headers['transfer-encoding']).toBeUndefined();
    expect(response.headers['keep-alive']).not.toBe('timeout=99');
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.body)));
    expect(response.headers['x-kept']).toBe('yes');
    expect(logged.join('')).toContain(
      'header \\"Transfer-Encoding\\" is set by the server for what it sends; left out',
    );
  });
});
