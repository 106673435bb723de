import { readFile, readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createLogger } from '@restbus/infra';
import { startMockServer } from '@restbus/mock-server';
import { generateDocs } from '../docs';
import { generateTests } from '../testgen';
import { runGeneratedTests } from './run-generated-tests';
import { makeTempDir, runTool, snapshotTree } from './tool-helpers';

const generators = { generateDocs, generateTests };

/** A port nothing listens on right now: the project's own port, which the test then serves on. */
function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The project's generated tests (`node --test test/`'s, in one process) with API_BASE_URL unset: they call what
 * config.yml says. */
const runProjectTests = (cwd: string): Promise<{ code: number; output: string }> =>
  runGeneratedTests(cwd, 'test', { API_BASE_URL: undefined });

interface ServerConfig {
  environments: Record<string, { port?: number; remoteServices?: Array<{ port?: number }> }>;
}

describe('rest-tool create --port: one setting for where the project is served, tested and documented', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeEach(async () => {
    temp = await makeTempDir();
  });
  afterEach(() => temp.remove());

  it('writes the port into servicePort, baseUrl and the environments that listen on servicePort, and keeps the rest', async () => {
    const result = await runTool(temp.dir, ['create', 'p', '--port', '3017']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const configText = await readFile(join(temp.dir, 'p', 'config.yml'), 'utf8');
    expect(parse(configText)).toMatchObject({ servicePort: 3017, baseUrl: 'http://localhost:3017/rest' });
    // Edited in place: the comments that explain the file stay.
    expect(configText).toContain(
      '(`rest-tool create --port` writes both).\nservicePort: 3017\nbaseUrl: http://localhost:3017/rest\n',
    );
    const serverText = await readFile(join(temp.dir, 'p', 'server', 'config.yml'), 'utf8');
    const { environments } = parse(serverText) as ServerConfig;
    expect(Object.fromEntries(Object.entries(environments).map(([name, env]) => [name, env.port]))).toEqual({
      default: 3017,
      development: 3017,
      devProxy: 3006,
      devProxyWithExceptions: 3006,
      production: 3008,
    });
    expect(environments.devProxy.remoteServices?.[0].port).toBe(3008);
    expect(serverText).toContain('# Forwards every service call to a real implementation on port 3008.');
    expect(await readFile(join(temp.dir, 'p', 'README.md'), 'utf8')).toContain('# the mock server on port 3017');
  });

  it('writes the ports of the specification without --port: servicePort 3007, environments on 3007, 3006 and 3008', async () => {
    await runTool(temp.dir, ['create', 'p']);
    const config = parse(await readFile(join(temp.dir, 'p', 'config.yml'), 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({ servicePort: 3007, baseUrl: 'http://localhost:3007/rest' });
    const { environments } = parse(await readFile(join(temp.dir, 'p', 'server', 'config.yml'), 'utf8')) as ServerConfig;
    expect(Object.values(environments).map((env) => env.port)).toEqual([3007, 3007, 3006, 3006, 3008]);
  });

  it('gives generated tests and docs the base URL of --port', async () => {
    await runTool(temp.dir, ['create', 'p', '--port', '3017']);
    const project = join(temp.dir, 'p');
    expect((await runTool(project, ['test', '-u'], generators)).code).toBe(0);
    expect((await runTool(project, ['docs', '-u'], generators)).code).toBe(0);
    const [file] = await readdir(join(project, 'test'));
    expect(await readFile(join(project, 'test', file), 'utf8')).toContain('"http://localhost:3017/rest"');
    expect(await readFile(join(project, 'docs', 'index.html'), 'utf8')).toContain(
      '<dt>Base URL</dt><dd><code>http://localhost:3017/rest</code></dd>',
    );
  });

  it('serves the project on its port with no --port for the server, and its generated tests pass there unchanged', async () => {
    const port = await findFreePort();
    await runTool(temp.dir, ['create', 'p', '--port', String(port)]);
    const project = join(temp.dir, 'p');
    await runTool(project, ['add', '-t', 'COLLECTION', '-p', '/users', '-u', '/users', '-n', 'Users']);
    expect((await runTool(project, ['test', '-u'], generators)).code).toBe(0);
    // As `node server/server` starts it: the port comes from the project's files alone.
    const server = await startMockServer({
      projectDir: project,
      watch: false,
      logger: createLogger({ name: 'test', level: 'silent' }),
    });
    try {
      expect(server.port).toBe(port);
      const run = await runProjectTests(project);
      expect(run.output).toMatch(/# fail 0\n/);
      expect(run).toMatchObject({ code: 0, output: expect.stringMatching(/# pass [1-9]\d*\n/) });
    } finally {
      await server.close();
    }
  });

  it.each([
    ['a word', 'abc'],
    ['0, which would pick any port', '0'],
    ['a port past 65535', '65536'],
    ['a fraction', '3017.5'],
    ['a sign', '+3017'],
  ])('refuses --port as %s with a usage error (exit 2) and writes nothing', async (_case, port) => {
    const before = await snapshotTree(temp.dir);
    const result = await runTool(temp.dir, ['create', 'p', '--port', port]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: option '--port <port>' argument '${port}' is invalid. a port is a whole number from 1 to 65535.`,
    );
    expect(await snapshotTree(temp.dir)).toEqual(before);
  });

  it('prints next steps that serve and call the port of --port', async () => {
    const result = await runTool(temp.dir, ['create', 'demo', '--port', '3017'], undefined, { PATH: '/usr/bin' });
    expect(result.stdout).toContain('  node server/server                # the mock server on port 3017\n');
    expect(result.stdout).toContain('  curl localhost:3017/rest/monitoring/isAlive\n');
  });
});
