import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockServer } from '../server/start-mock-server';
import { rawGet } from './raw-get';
import { sampleFiles, serveProject, writeProject } from './sample-project';

let project: string;
let outside: string;
let server: MockServer;

beforeAll(async () => {
  project = await writeProject(sampleFiles());
  outside = await mkdtemp(join(tmpdir(), 'restbus-outside-'));
  await writeFile(join(outside, 'secret.txt'), 'SECRET\n');
  // Symlinks out of every static root, to a file and to a folder.
  for (const root of ['data', 'docs', 'services', 'webui']) {
    await symlink(join(outside, 'secret.txt'), join(project, root, 'link.txt'));
    await symlink(outside, join(project, root, 'linkdir'));
  }
  await writeFile(join(project, 'webui', '.env'), 'HIDDEN=1\n');
  server = await serveProject(project, { watch: false });
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('static folders', () => {
  it('serves /data, /docs and /services from the project and the documentRoot at /', async () => {
    expect((await rawGet(server.url, '/data/info.txt')).body).toBe('data file\n');
    expect((await rawGet(server.url, '/docs/index.html')).body).toBe('<h1>docs</h1>\n');
    expect((await rawGet(server.url, '/services/users/notFound.json')).body).toBe('{"error":"no users"}');
    expect((await rawGet(server.url, '/app.js')).body).toBe('console.log(1);\n');
  });

  it('serves index.html of a folder and redirects a folder without its trailing slash', async () => {
    expect((await rawGet(server.url, '/docs/')).body).toBe('<h1>docs</h1>\n');
    expect((await rawGet(server.url, '/')).body).toBe('<h1>app</h1>\n');
    const redirect = await rawGet(server.url, '/docs?x=1');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe('/docs/?x=1');
  });

  const roots = ['/data', '/docs', '/services', ''];
  const attacks = [
    '/../config.yml',
    '/../server/config.yml',
    '/%2e%2e/config.yml',
    '/%2E%2E/%2e%2e/config.yml',
    '/..%2fconfig.yml',
    '/..%2Fserver%2Fconfig.yml',
    '/%252e%252e/config.yml',
    '/..\\config.yml',
    '/..%5cconfig.yml',
    '/%5c..%5c..%5cconfig.yml',
    '/link.txt',
    '/linkdir/secret.txt',
    '/%00/config.yml',
    '/.env',
  ];
  for (const root of roots) {
    for (const attack of attacks) {
      it(`keeps ${root || '/'}${attack.slice(1)} inside its folder (403 or 404 JSON, no content, no stack)`, async () => {
        const response = await rawGet(server.url, `${root}${attack}`);
        expect([400, 403, 404]).toContain(response.status);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        const body = JSON.parse(response.body) as { error: string; code: string };
        expect(['BAD_REQUEST', 'FORBIDDEN', 'NOT_FOUND']).toContain(body.code);
        expect(response.body).not.toMatch(/SECRET|projectName|environments|HIDDEN|\n\s+at /);
      });
    }
  }

  it('answers 400 for an encoded .. (refused before any folder is looked at) and 403 for a symlink that leads out', async () => {
    expect((await rawGet(server.url, '/data/%2e%2e/config.yml')).status).toBe(400);
    expect((await rawGet(server.url, '/data/link.txt')).status).toBe(403);
  });

  it('follows a symlink that stays inside its folder', async () => {
    await symlink(join(project, 'data', 'info.txt'), join(project, 'data', 'alias.txt'));
    expect((await rawGet(server.url, '/data/alias.txt')).body).toBe('data file\n');
  });
});
