import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createLogger } from '@restbus/infra';
import { loadProject } from '@restbus/project-format';
import { startMockServer } from '@restbus/mock-server';
import { makeTempDir, runTool, snapshotTree } from './tool-helpers';

describe('rest-tool create', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeEach(async () => {
    temp = await makeTempDir();
  });
  afterEach(() => temp.remove());

  it('creates a project that the mock server loads, with every file the issue lists', async () => {
    const result = await runTool(temp.dir, ['create', 'crm-api']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const dir = join(temp.dir, 'crm-api');
    const files = Object.keys(await snapshotTree(dir));
    expect(files).toEqual(
      expect.arrayContaining([
        'config.yml',
        'README.md',
        '.gitignore',
        'package.json',
        'server/server',
        'server/config.yml',
        'server/api.js',
        'server/monitoring.js',
        'services/monitoring/isAlive/service.yml',
        'data/',
        'docs/',
        'test/',
        'templates/services/COLLECTION/service.yml',
        'templates/services/OPERATION/postOperation-requestBody.json',
        'templates/services/RESOURCE/deleteResource-responseBody.json',
        'templates/test/',
        'templates/docs/',
      ]),
    );
    const config = parse(await readFile(join(dir, 'config.yml'), 'utf8')) as Record<string, unknown>;
    expect(config).toEqual({
      projectName: 'crm-api',
      apiVersion: 'v0.0.0',
      author: 'TBD.',
      licence: 'TBD.',
      serviceUrlPrefix: '/rest',
      servicePort: 3007,
      baseUrl: 'http://localhost:3007/rest',
      servicesRoot: 'services',
      services: ['/monitoring/isAlive'],
      loginCredentials: { user: 'username', pass: 'password' },
    });
    const project = await loadProject({ projectDir: dir });
    expect(project.environment.name).toBe('development');
    expect(project.services.map((service) => service.path)).toEqual(['/monitoring/isAlive']);
    expect((await stat(join(dir, 'server', 'server'))).mode & 0o111).not.toBe(0);
  });

  it('writes server/config.yml with the five environments of the spec', async () => {
    await runTool(temp.dir, ['create', 'p']);
    const dir = join(temp.dir, 'p');
    const server = parse(await readFile(join(dir, 'server', 'config.yml'), 'utf8')) as {
      useEnvironment: string;
      environments: Record<string, Record<string, unknown>>;
    };
    expect(server.useEnvironment).toBe('development');
    expect(Object.keys(server.environments)).toEqual([
      'default',
      'development',
      'devProxy',
      'devProxyWithExceptions',
      'production',
    ]);
    expect(server.environments.default).toMatchObject({
      documentRoot: '.',
      port: 3007,
      restapiRoot: '..',
      remoteServices: [],
    });
    expect(server.environments.development).toMatchObject({ port: 3007, documentRoot: '../webui' });
    expect(server.environments.devProxy).toMatchObject({ port: 3006, remoteServices: [{ active: true }] });
    expect(server.environments.devProxyWithExceptions).toMatchObject({
      port: 3006,
      proxyException: { active: true, urlPrefixList: ['/monitoring/isAlive'] },
    });
    expect(server.environments.production).toMatchObject({ port: 3008 });
    for (const name of Object.keys(server.environments)) {
      await expect(loadProject({ projectDir: dir, environment: name })).resolves.toBeDefined();
    }
  });

  it('answers isAlive from monitoring.js with true, JSON and the apiVersion of config.yml, served by restbus-mock', async () => {
    await runTool(temp.dir, ['create', 'p']);
    const dir = join(temp.dir, 'p');
    const configFile = join(dir, 'config.yml');
    await writeFile(configFile, (await readFile(configFile, 'utf8')).replace('v0.0.0', "'v2.1'"));
    // Served by the real mock server: it hands the module the project config as serviceDescriptor.config.
    const server = await startMockServer({
      projectDir: dir,
      port: 0,
      host: '127.0.0.1',
      watch: false,
      logger: createLogger({ name: 'test', level: 'silent' }),
    });
    try {
      const response = await fetch(`${server.url}/rest/monitoring/isAlive`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('true\n');
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('x-application-api-version')).toBe('v2.1');
    } finally {
      await server.close();
    }
  });

  it('keeps any project name exact in config.yml and README', async () => {
    const name = "ü: & #it's";
    expect((await runTool(temp.dir, ['create', name])).code).toBe(0);
    const dir = join(temp.dir, name);
    expect((parse(await readFile(join(dir, 'config.yml'), 'utf8')) as { projectName: string }).projectName).toBe(name);
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toContain(`# ${name}\n`);
    const server = parse(await readFile(join(dir, 'server', 'config.yml'), 'utf8')) as {
      environments: { production: { documentRoot: string } };
    };
    expect(server.environments.production.documentRoot).toBe(`../webui/build/${name}/production`);
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'))).toMatchObject({ name: 'it-s' });
  });

  it.each([
    ['an existing folder', 'taken', /exists already/],
    ['an empty name', '', /must not be empty/],
    ['a name escaping the current folder', '../outside', /inside the current one/],
    ['an absolute path', '/tmp/elsewhere', /inside the current one/],
    ['the current folder', '.', /inside the current one/],
    ['a folder whose parent does not exist', 'no/such/parent', /does not exist/],
  ])('refuses %s with exit 1 and writes nothing', async (_case, name, message) => {
    await mkdir(join(temp.dir, 'taken'));
    const before = await snapshotTree(temp.dir);
    const result = await runTool(temp.dir, ['create', name]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^rest-tool: .*nothing was written\n$/);
    expect(await snapshotTree(temp.dir)).toEqual(before);
  });

  it("copies the tool's service, docs and test templates into the project, unchanged", async () => {
    await runTool(temp.dir, ['create', 'p']);
    const toolTemplates = join(__dirname, '..', '..', 'templates');
    for (const name of ['services', 'docs', 'test']) {
      expect(await snapshotTree(join(temp.dir, 'p', 'templates', name))).toEqual(
        await snapshotTree(join(toolTemplates, name)),
      );
    }
  });

  it('prints next steps for the host: into the folder, add a service, serve it with node server/server on 3007', async () => {
    const result = await runTool(temp.dir, ['create', 'demo'], undefined, { PATH: '/usr/bin' });
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'created the project demo',
        'next steps:',
        '  cd demo',
        '  rest-tool add -t COLLECTION -p /users -u /users -n Users',
        '  node server/server                # the mock server on port 3007',
        '  curl localhost:3007/rest/monitoring/isAlive',
        '',
      ].join('\n'),
    });
  });

  it('prints next steps for the host of its container when RESTBUS_TOOL_CONTAINER=1, as the README runs it', async () => {
    const result = await runTool(temp.dir, ['create', 'my api', '--port', '3017'], undefined, {
      RESTBUS_TOOL_CONTAINER: '1',
    });
    const compose = 'docker compose -f <restbus>/docker-compose.yml';
    // Published on the project's own port, the one its tests and docs call.
    const serve = `${compose} run --rm -p 127.0.0.1:3017:3017 --entrypoint node tool server/server --port 3017`;
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'created the project my api',
        'next steps, on the host (<restbus>: your restbus checkout; compose v1: docker-compose for docker compose):',
        "  cd 'my api'",
        `  ${compose} run --rm tool add -t COLLECTION -p /users -u /users -n Users`,
        `  ${serve}`,
        '  curl localhost:3017/rest/monitoring/isAlive',
        'or the same with <restbus>/bin/rest-tool-docker add … and <restbus>/bin/rest-tool-docker serve',
        '',
      ].join('\n'),
    });
    // The root README's commands "without the script", with its checkout at ~/restbus: the same words.
    const readme = await readFile(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
    const asInReadme = (command: string): string => command.replace('<restbus>', '~/restbus');
    expect(readme).toContain(asInReadme(serve));
    expect(readme).toContain(asInReadme(`${compose} run --rm tool create demo --port 3017`));
  });

  it("warns in its next steps, in the container, that 3007 is also the port of the compose stack's gateway", async () => {
    const result = await runTool(temp.dir, ['create', 'demo'], undefined, { RESTBUS_TOOL_CONTAINER: '1' });
    expect(result.stdout).toContain('-p 127.0.0.1:3007:3007 --entrypoint node tool server/server --port 3007\n');
    expect(result.stdout).toMatch(/^note: port 3007 is also the gateway's in the compose stack; .*--port 3017/m);
  });

  it('lists every file it writes with -v', async () => {
    const result = await runTool(temp.dir, ['create', 'p', '-v']);
    expect(result.stdout).toContain(`wrote ${join('p', 'server', 'monitoring.js')}\n`);
  });
});
