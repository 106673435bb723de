import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSeededRandom, recordHostileCounts } from '@restbus/infra/testing';
import { rawGet } from './raw-get';
import { sampleFiles, writeProject } from './sample-project';
import { serveProjectStatics, type ServedStatics } from './serve-project-statics';

// Static folders under attack: `.` (the server folder, as the spec's default), the web folder, and two roots that
// are symlinks out of the project; every static folder also holds symlinks planted to lead out.
const SERVER_CONFIG = `useEnvironment: hostile
environments:
  default:
    restapiRoot: ..
    documentRoot: .
    sessionSecret: SESSION-SECRET-91c2
  hostile:
    documentRoot: [., ../webui, ../etclink, ../outlink]
`;

const UPS = [
  '..',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%252e%252e',
  '%c0%ae%c0%ae',
  '%e0%80%ae%e0%80%ae',
  '%ef%bc%8e%ef%bc%8e',
  '..%00',
  '%2e%2e%00',
  '....',
  '..%20',
  '..;',
  '.',
];
const SEPARATORS = ['/', '%2f', '%2F', '\\', '%5c', '%5C', '%c0%af', '%c1%9c', '%e0%80%af', '%252f', '//', '/./'];
const TARGETS = [
  'config.yml',
  'CONFIG.YML',
  'server/config.yml',
  'server/api.js',
  'api.js',
  'monitoring.js',
  'etc/passwd',
  'passwd',
  'etclink/passwd',
  'outlink/secret.txt',
  'secret.txt',
  'link.txt',
  'linkdir/secret.txt',
  'passwd-link',
  'cfg.yml',
  'up/server/config.yml',
  'up/config.yml',
  '.env',
  'webui/.env',
  'index.html',
  'app.js',
  'app.js%00.html',
  '%00',
  'config.yml%00.html',
  'config.yml%20',
  'config.yml.',
  'config.yml%2f',
];
const PREFIXES = ['', '/data', '/docs', '/services', '/webui', '/rest'];
const FIXED = [
  '/config.yml',
  '/api.js',
  '//etc/passwd',
  '/%2fetc%2fpasswd',
  '/%5cetc%5cpasswd',
  '/etclink/passwd',
  '/passwd',
  '/secret.txt',
  '/data/passwd-link',
  '/docs/linkdir/secret.txt',
  '/services/link.txt',
  '/cfg.yml',
  '/up/server/config.yml',
  '/%00',
  '/%',
  '/%zz',
  '/%c0',
  '/data/%ff%fe',
  '/..',
  '/.',
  '/data/..',
  '/data/.',
];
const REQUESTS = 300;

/** Content from outside the project: the planted outside folder and /etc. */
const ESCAPE = /OUTSIDE-SECRET-7f3a|root:[^:\n]*:0:0:/;
/** What the project holds that must not go out, and what a failure must not show. */
const LEAK = /SESSION-SECRET-91c2|SOURCE-MARKER-api|s3cret:pass|HIDDEN-DOTFILE|\n\s+at |node:internal/;

let project: string;
let outside: string;
let server: ServedStatics;

beforeAll(async () => {
  const files = sampleFiles();
  project = await writeProject({
    ...files,
    'server/config.yml': SERVER_CONFIG,
    'server/api.js': `// SOURCE-MARKER-api\n${files['server/api.js'] as string}`,
    'webui/.env': 'HIDDEN-DOTFILE=1\n',
  });
  outside = await mkdtemp(join(tmpdir(), 'restbus-outside-'));
  await writeFile(join(outside, 'secret.txt'), 'OUTSIDE-SECRET-7f3a\n');
  await writeFile(join(outside, 'index.html'), 'OUTSIDE-SECRET-7f3a index\n');
  await symlink('/etc', join(project, 'etclink'));
  await symlink(outside, join(project, 'outlink'));
  for (const folder of ['data', 'docs', 'services', 'webui', 'server']) {
    await symlink(join(outside, 'secret.txt'), join(project, folder, 'link.txt'));
    await symlink(outside, join(project, folder, 'linkdir'));
    await symlink('/etc/passwd', join(project, folder, 'passwd-link'));
    await symlink(join(project, 'server', 'config.yml'), join(project, folder, 'cfg.yml'));
    await symlink(project, join(project, folder, 'up'));
  }
  server = await serveProjectStatics(project);
});
afterAll(async () => {
  await server?.close();
  await rm(project, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function hostilePaths(): string[] {
  const random = createSeededRandom(13);
  const paths = [...FIXED];
  while (paths.length < REQUESTS) {
    const separator = (): string => random.pick(SEPARATORS);
    let path = `${random.pick(PREFIXES)}/`;
    for (let up = random.below(5); up > 0; up--) path += random.pick(UPS) + separator();
    path += random.pick(TARGETS).replace(/\//g, () => (random.below(3) ? '/' : separator()));
    paths.push(path);
  }
  return paths;
}

describe('hostile static paths', () => {
  it('serve nothing from outside the project, leak nothing and fail only with JSON errors', async () => {
    const machinePaths = [project, outside, tmpdir(), homedir(), process.cwd()];
    const found = { escapes: 0, leaks: 0, crashes: 0 };
    const findings: string[] = [];
    const paths = hostilePaths();
    for (const path of paths) {
      let response: Awaited<ReturnType<typeof rawGet>>;
      try {
        response = await rawGet(server.url, path);
      } catch (err) {
        found.crashes++;
        findings.push(`${path}: no answer (${(err as Error).message})`);
        continue;
      }
      const { status, body } = response;
      if (ESCAPE.test(body)) {
        found.escapes++;
        findings.push(`${path}: ${status} with content from outside the project`);
      }
      if (LEAK.test(body) || machinePaths.some((machinePath) => body.includes(machinePath))) {
        found.leaks++;
        findings.push(`${path}: ${status} leaks ${body.slice(0, 120)}`);
      }
      if (status >= 500) {
        found.crashes++;
        findings.push(`${path}: ${status} ${body.slice(0, 120)}`);
      }
      if (status >= 400) {
        let error: unknown;
        try {
          error = JSON.parse(body);
        } catch {
          error = undefined;
        }
        const valid =
          response.headers['content-type'] === 'application/json; charset=utf-8' &&
          typeof (error as { error?: unknown })?.error === 'string' &&
          typeof (error as { code?: unknown })?.code === 'string';
        if (!valid) {
          found.leaks++;
          findings.push(`${path}: ${status} is not a JSON error: ${body.slice(0, 120)}`);
        }
      }
    }
    recordHostileCounts('mock-static', { tried: { requests: paths.length }, found });
    expect(findings).toEqual([]);
    expect(found).toEqual({ escapes: 0, leaks: 0, crashes: 0 });
    expect(paths.length).toBe(REQUESTS);
  });

  it('still serves the project after them', async () => {
    expect((await rawGet(server.url, '/app.js')).body).toBe('console.log(1);\n');
    expect((await rawGet(server.url, '/data/info.txt')).body).toBe('data file\n');
  });
});
