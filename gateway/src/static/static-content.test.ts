import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { RestbusError } from '@restbus/infra';
import { sendRaw } from '@restbus/infra/testing';
import { startTestGateway, type TestGateway } from '../__tests__/start-test-gateway';
import { createGateway } from '../app/create-gateway';
import { createMetrics } from '../observability/create-metrics';
import { loadApi } from '../openapi/load-api';

// An API in the shape of tombenke/person-rest-api: /isalive and /api-docs/ are easer `x-static` operations.
const api = (contentPaths: { isalive: string; docs: string }) => `
swagger: '2.0'
info: { title: statics, version: '1.0' }
paths:
  /isalive:
    get:
      summary: Used by kubernetes liveness and readiness probes
      x-static:
        contentPath: ${contentPaths.isalive}
        config: { dotfiles: allow, index: true }
      responses: { '200': { description: OK } }
  /api-docs/:
    get:
      x-static: { contentPath: ${contentPaths.docs} }
      responses: { '200': { description: OK } }
  /api-docs/forwarded:
    get:
      responses: { '200': { description: OK } }
`;

let dir: string;
let gateway: TestGateway;
let port: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-static-'));
  await mkdir(join(dir, 'content', 'isalive'), { recursive: true });
  await mkdir(join(dir, 'content', 'docs', 'nested'), { recursive: true });
  await writeFile(join(dir, 'content', 'isalive', 'index.html'), '<p>alive</p>');
  await writeFile(join(dir, 'content', 'docs', 'swagger.json'), '{"swagger":"2.0"}');
  await writeFile(join(dir, 'content', 'docs', 'nested', 'note.txt'), 'a note');
  await writeFile(join(dir, 'content', 'secret.txt'), 'not under any contentPath');
  await writeFile(join(dir, 'api.yml'), api({ isalive: './isalive/', docs: 'docs' }));
  const endpoints = await loadApi(join(dir, 'api.yml'));
  gateway = await startTestGateway(endpoints, { staticContentBasePath: join(dir, 'content') });
  port = Number(new URL(gateway.url).port);
});
afterAll(async () => {
  await gateway?.close();
  await rm(dir, { recursive: true, force: true });
});

const expectJsonError = async (response: Response, status: number, code: string) => {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(((await response.json()) as { code: string }).code).toBe(code);
};

describe("easer's x-static operations", () => {
  it("serves the folder's index.html at the operation's path, redirecting the path without its slash", async () => {
    const redirect = await fetch(`${gateway.url}/isalive`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/isalive/');
    const page = await fetch(`${gateway.url}/isalive/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toBe('<p>alive</p>');
    expect(page.headers.get('x-request-id')).toBeTruthy();
  });

  it('serves files below the path, matching the path case-insensitively as Express did', async () => {
    const file = await fetch(`${gateway.url}/API-Docs/swagger.json`);
    expect(file.status).toBe(200);
    expect(await file.json()).toEqual({ swagger: '2.0' });
    expect(await (await fetch(`${gateway.url}/api-docs/nested/note.txt`)).text()).toBe('a note');
  });

  it('lists a folder without index.html, as HTML or as JSON when asked', async () => {
    const html = await fetch(`${gateway.url}/api-docs/`);
    expect(html.status).toBe(200);
    expect(await html.text()).toContain('swagger.json');
    const json = await fetch(`${gateway.url}/api-docs/`, { headers: { accept: 'application/json' } });
    expect(await json.json()).toEqual(expect.arrayContaining(['swagger.json', 'nested']));
  });

  it('answers a described operation below the static path as an operation, not from the folder', async () => {
    // Without -u every described operation answers 501: it was routed, not looked up as a file.
    expect((await fetch(`${gateway.url}/api-docs/forwarded`)).status).toBe(501);
  });

  it('answers a missing file 404, and any method but GET and HEAD 405, in JSON', async () => {
    await expectJsonError(await fetch(`${gateway.url}/api-docs/missing.json`), 404, 'NOT_FOUND');
    const post = await fetch(`${gateway.url}/api-docs/swagger.json`, { method: 'POST', body: 'x' });
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    await expectJsonError(post, 405, 'METHOD_NOT_ALLOWED');
  });

  it.each([
    '/api-docs/../secret.txt',
    '/api-docs/%2e%2e/secret.txt',
    '/api-docs/%2E%2E%2Fsecret.txt',
    '/api-docs/..%5csecret.txt',
    '/api-docs/nested/../../secret.txt',
    '/api-docs/%00',
    '/api-docs/%ZZ',
  ])('never serves what lies outside the folder: %s', async (path) => {
    const response = await sendRaw(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect([400, 403, 404]).toContain(response.status);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).not.toContain('not under any contentPath');
  });
});

describe('loading x-static operations', () => {
  it('refuses an x-static without a contentPath, naming the file and the operation', async () => {
    await writeFile(join(dir, 'broken.yml'), api({ isalive: "''", docs: 'docs' }));
    await expect(loadApi(join(dir, 'broken.yml'))).rejects.toThrow(
      /broken\.yml:8:7 {2}error {2}paths\.\/isalive\.get\.x-static: needs a contentPath/,
    );
  });

  it('refuses a contentPath that leads outside the static content base path', async () => {
    await writeFile(join(dir, 'outside.yml'), api({ isalive: '../', docs: 'docs' }));
    const endpoints = await loadApi(join(dir, 'outside.yml'));
    const create = () =>
      createGateway({
        endpoints,
        topicPrefix: 'easer',
        basePath: '/',
        staticContentBasePath: join(dir, 'content'),
        bodyLimit: 1024,
        isConnected: () => true,
        metrics: createMetrics(),
        logger: pino({ level: 'silent' }),
      });
    expect(create).toThrow(RestbusError);
    expect(create).toThrow(/x-static of \/isalive serves \.\.\/, which leads outside the static content base path/);
  });
});
