import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkProject } from '../server/check-project';
import { rawGet } from './raw-get';
import { sampleFiles, validSampleFiles, writeProject } from './sample-project';
import { serveProjectStatics, type ServedStatics } from './serve-project-statics';

// The environments a project made by rest-tool has (`default` serves `server/` itself), plus ones that point static
// folders at symlinks.
const SERVER_CONFIG = `useEnvironment: default
environments:
  default:
    port: 3007
    restapiRoot: ..
    documentRoot: .
    sessionSecret: SESSION-SECRET-do-not-serve
  whole: { documentRoot: [., ..] }
  etc: { documentRoot: [../etclink, ../webui] }
  outside: { documentRoot: ../outlink }
  linkedInside: { documentRoot: ../weblink }
`;

let project: string;
let outside: string;

beforeAll(async () => {
  project = await writeProject({
    ...validSampleFiles(),
    'server/config.yml': SERVER_CONFIG,
    'server/index.html': '<h1>server page</h1>\n',
    'server/helper.ts': 'export const SOURCE_MARKER = 1;\n',
    'server/settings.json': '{"SOURCE_MARKER": 1}\n',
    'server/node_modules/dep/readme.txt': 'SOURCE_MARKER dependency\n',
  });
  outside = await mkdtemp(join(tmpdir(), 'restbus-outside-'));
  await writeFile(join(outside, 'secret.txt'), 'OUTSIDE-SECRET\n');
  await writeFile(join(outside, 'index.html'), 'OUTSIDE-SECRET index\n');
  await symlink('/etc', join(project, 'etclink'));
  await symlink(outside, join(project, 'outlink'));
  await symlink(join(project, 'webui'), join(project, 'weblink'));
  // A file in a served folder that leads to the server's config.
  await symlink(join(project, 'server', 'config.yml'), join(project, 'webui', 'settings.yml'));
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function expectNotServed(server: ServedStatics, path: string): Promise<void> {
  const response = await rawGet(server.url, path);
  expect(response.status).toBe(404);
  expect(JSON.parse(response.body)).toMatchObject({ code: 'NOT_FOUND' });
  expect(response.body).not.toMatch(/SESSION-SECRET|SOURCE_MARKER|OUTSIDE-SECRET|loginCredentials|root:/);
}

describe('the default environment, whose documentRoot . is the server folder', () => {
  let server: ServedStatics;
  beforeAll(async () => {
    server = await serveProjectStatics(project);
  });
  afterAll(() => server.close());

  it('still serves the server folder as the spec says', async () => {
    expect((await rawGet(server.url, '/index.html')).body).toBe('<h1>server page</h1>\n');
    expect((await rawGet(server.url, '/')).body).toBe('<h1>server page</h1>\n');
  });

  it('never serves the server config with its sessionSecret', async () => {
    await expectNotServed(server, '/config.yml');
    await expectNotServed(server, '/CONFIG.YML');
  });

  it("never serves the server's sources, settings or dependencies", async () => {
    for (const path of ['/api.js', '/monitoring.js', '/helper.ts', '/settings.json', '/node_modules/dep/readme.txt']) {
      await expectNotServed(server, path);
    }
  });

  it('warns that the config and sources of the server folder are left out', () => {
    expect(server.warnings).toEqual([expect.stringMatching(/server.*config and sources.*not served/)]);
  });
});

describe('a documentRoot that holds the server folder or links into it', () => {
  let server: ServedStatics;
  beforeAll(async () => {
    server = await serveProjectStatics(project, 'whole');
  });
  afterAll(() => server.close());

  it('serves neither server/config.yml, the sources nor the project config with its login', async () => {
    await expectNotServed(server, '/server/config.yml');
    await expectNotServed(server, '/server/api.js');
    await expectNotServed(server, '/config.yml');
  });

  it('does not serve a symlink elsewhere in the project that leads to the server config', async () => {
    await expectNotServed(server, '/webui/settings.yml');
  });

  it('keeps the rest of the folder served', async () => {
    expect((await rawGet(server.url, '/webui/app.js')).body).toBe('console.log(1);\n');
    expect((await rawGet(server.url, '/server/index.html')).body).toBe('<h1>server page</h1>\n');
  });

  it('warns once although two folders overlap the server folder', () => {
    expect(server.warnings.filter((warning) => /config and sources/.test(warning))).toHaveLength(1);
  });
});

describe('static roots that are symlinks', () => {
  it('refuses a documentRoot that is a symlink to /etc, with a warning, and serves the other roots', async () => {
    const server = await serveProjectStatics(project, 'etc');
    try {
      await expectNotServed(server, '/passwd');
      await expectNotServed(server, '/hostname');
      expect((await rawGet(server.url, '/app.js')).body).toBe('console.log(1);\n');
      expect(server.warnings).toEqual([expect.stringMatching(/etclink.*outside the project folder.*not served/)]);
    } finally {
      await server.close();
    }
  });

  it('refuses a documentRoot that is a symlink to a folder outside the project', async () => {
    const server = await serveProjectStatics(project, 'outside');
    try {
      await expectNotServed(server, '/secret.txt');
      await expectNotServed(server, '/');
      expect(server.warnings).toEqual([expect.stringMatching(/outlink.*outside the project folder/)]);
    } finally {
      await server.close();
    }
  });

  it('refuses a project folder such as data/ that is a symlink leading out', async () => {
    const linked = await writeProject({ ...sampleFiles(), 'data/info.txt': 'unused\n' });
    await rm(join(linked, 'data'), { recursive: true });
    await symlink(outside, join(linked, 'data'));
    const server = await serveProjectStatics(linked);
    try {
      await expectNotServed(server, '/data/secret.txt');
      expect(server.warnings).toEqual([expect.stringMatching(/data.*outside the project folder/)]);
    } finally {
      await server.close();
      await rm(linked, { recursive: true, force: true });
    }
  });

  it('serves a documentRoot that is a symlink to a folder inside the project', async () => {
    const server = await serveProjectStatics(project, 'linkedInside');
    try {
      expect((await rawGet(server.url, '/app.js')).body).toBe('console.log(1);\n');
      expect(server.warnings).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('a project folder reached through a symlink', () => {
  it('serves its folders: the project is compared by its real location', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'restbus-via-'));
    await mkdir(join(parent, 'real'));
    const real = await writeProject(sampleFiles(), join(parent, 'real'));
    await symlink(real, join(parent, 'alias'));
    const server = await serveProjectStatics(join(parent, 'alias'));
    try {
      expect((await rawGet(server.url, '/data/info.txt')).body).toBe('data file\n');
      expect((await rawGet(server.url, '/app.js')).body).toBe('console.log(1);\n');
      expect(server.warnings).toEqual([]);
    } finally {
      await server.close();
      await rm(parent, { recursive: true, force: true });
    }
  });
});

describe('checkProject, for the project checkers', () => {
  it('warns of what serving would warn about, and of nothing for a project without such folders', async () => {
    const warningsOf = async (environment?: string): Promise<string[]> =>
      (await checkProject({ projectDir: project, environment })).warnings;
    expect(await warningsOf('etc')).toEqual([
      expect.stringMatching(/^documentRoot \.\.\/etclink leads outside the project folder/),
    ]);
    expect(await warningsOf()).toEqual([expect.stringMatching(/^documentRoot \. serves the server folder/)]);
    expect(await warningsOf('linkedInside')).toEqual([]);
  });
});
