import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MockServer } from '../server/start-mock-server';
import { rawGet } from './raw-get';
import { sampleFiles, serveProject, writeProject } from './sample-project';

// What the generated docs carry in their own meta tag: the header says the same, so a page stays protected even
// without the tag.
const DOCS_POLICY = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(
  readFileSync(join(__dirname, '../../../tool/templates/docs/page-head.mustache'), 'utf8'),
)![1];

const EVIL_HTML = '<script>parent.stolen = document.cookie</script>\n';
const EVIL_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>\n';

let project: string;
let server: MockServer;
let overlapping: MockServer;

beforeAll(async () => {
  const files = sampleFiles();
  project = await writeProject({
    ...files,
    'server/config.yml': `${files['server/config.yml'] as string}  servicesAsWebRoot:\n    documentRoot: ../services\n`,
    'services/users/evil.html': EVIL_HTML,
    'services/users/evil.svg': EVIL_SVG,
    'docs/assets/docs.js': 'void 0;\n',
    'docs/services/users.html': '<h1>users</h1>\n',
  });
  server = await serveProject(project, { watch: false });
  overlapping = await serveProject(project, { watch: false, environment: 'servicesAsWebRoot' });
});
afterAll(async () => {
  await server?.close();
  await overlapping?.close();
  await rm(project, { recursive: true, force: true });
});

describe('headers of static answers', () => {
  it('serve an HTML or SVG file of the services folder sandboxed, so that it runs no script on the API origin', async () => {
    for (const [path, body] of [
      ['/services/users/evil.html', EVIL_HTML],
      ['/services/users/evil.svg', EVIL_SVG],
      ['/services/users/notFound.json', '{"error":"no users"}'],
    ]) {
      const answer = await rawGet(server.url, path);
      expect([path, answer.status, answer.body]).toEqual([path, 200, body]);
      expect([path, answer.headers['content-security-policy'], answer.headers['x-content-type-options']]).toEqual([
        path,
        'sandbox',
        'nosniff',
      ]);
    }
  });

  it('sandbox a services file whatever spelling of its path reaches it', async () => {
    const spellings = [
      '/services/users/evil.html',
      '/services/users/%65vil.html',
      '/services/users/evil%2ehtml',
      '/services//users/evil.html',
      '/services/./users/evil.html',
      '/services/users/./evil.svg',
      '/services/users/evil.svg?x=<script>',
      '/services/%75sers/evil.svg',
      '/services/users%2fevil.svg',
      '/rest/../services/users/evil.html',
      '/docs/../services/users/evil.html',
      '/services/users/EVIL.HTML',
      '/Services/users/evil.html',
    ];
    const unprotected: string[] = [];
    let servedCount = 0;
    for (const path of spellings) {
      const answer = await rawGet(server.url, path);
      const served = answer.body === EVIL_HTML || answer.body === EVIL_SVG;
      if (served) servedCount++;
      if (served && answer.headers['content-security-policy'] !== 'sandbox') unprotected.push(path);
      if (answer.headers['x-content-type-options'] !== 'nosniff' && answer.status < 400) unprotected.push(path);
    }
    expect(unprotected).toEqual([]);
    // The spellings that name the file reach it: the check above is not vacuous.
    expect(servedCount).toBeGreaterThanOrEqual(7);
  });

  it('sandbox a services file reached through another static folder too', async () => {
    const answer = await rawGet(overlapping.url, '/users/evil.html');
    expect([answer.status, answer.body]).toEqual([200, EVIL_HTML]);
    expect(answer.headers['content-security-policy']).toBe('sandbox');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serve the docs with the policy of their meta tag, which lets their own scripts run', async () => {
    expect(DOCS_POLICY).toContain("script-src 'self'");
    for (const path of ['/docs/', '/docs/index.html', '/docs/services/users.html', '/docs/assets/docs.js']) {
      const answer = await rawGet(server.url, path);
      expect([path, answer.status]).toEqual([path, 200]);
      expect([path, answer.headers['content-security-policy'], answer.headers['x-content-type-options']]).toEqual([
        path,
        DOCS_POLICY,
        'nosniff',
      ]);
    }
  });

  it('serve every other static file with nosniff and no sandbox, so that a web UI keeps working', async () => {
    for (const path of ['/data/info.txt', '/app.js', '/', '/index.html']) {
      const answer = await rawGet(server.url, path);
      expect([path, answer.status]).toEqual([path, 200]);
      expect([path, answer.headers['x-content-type-options'], answer.headers['content-security-policy']]).toEqual([
        path,
        'nosniff',
        undefined,
      ]);
    }
  });
});
