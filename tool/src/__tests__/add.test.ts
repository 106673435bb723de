import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadProject } from '@restbus/project-format';
import { makeTempDir, runTool, snapshotTree } from './tool-helpers';

type Descriptor = {
  name: string;
  description: string;
  style: string;
  uriTemplate: string;
  methods: Record<string, { summary: string; request?: { parameters?: Array<Record<string, unknown>> } }>;
};

describe('rest-tool add', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let project: string;
  const readService = async (path: string): Promise<Descriptor> =>
    parse(await readFile(join(project, 'services', path, 'service.yml'), 'utf8')) as Descriptor;

  beforeEach(async () => {
    temp = await makeTempDir();
    await runTool(temp.dir, ['create', 'p']);
    project = join(temp.dir, 'p');
  });
  afterEach(() => temp.remove());

  it.each([
    [
      'COLLECTION',
      ['GET', 'POST'],
      [
        'getCollection-responseBody.json',
        'postCollection-requestBody.json',
        'postCollection-responseBody.json',
        'service.yml',
      ],
    ],
    [
      'RESOURCE',
      ['GET', 'PUT', 'DELETE'],
      [
        'deleteResource-responseBody.json',
        'getResource-responseBody.json',
        'putResource-requestBody.json',
        'putResource-responseBody.json',
        'service.yml',
      ],
    ],
    ['OPERATION', ['POST'], ['postOperation-requestBody.json', 'postOperation-responseBody.json', 'service.yml']],
  ])('creates a %s service with its methods and mock files, listed in config.yml', async (type, methods, files) => {
    const result = await runTool(project, ['add', '-t', type, '-p', '/things', '-u', '/things', '-n', 'Things']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect((await readdir(join(project, 'services', 'things'))).sort()).toEqual(files);
    const service = await readService('things');
    expect(service).toMatchObject({ name: 'Things service', style: type, uriTemplate: '/things' });
    expect(Object.keys(service.methods)).toEqual(methods);
    const loaded = await loadProject({ projectDir: project });
    expect(loaded.services.map((s) => s.path)).toEqual(['/monitoring/isAlive', '/things']);
  });

  it('makes a RESOURCE when no type is given (upstream made an OPERATION)', async () => {
    await runTool(project, ['add', '-p', 'users/user', '-u', '/users/{id}', '-n', 'User']);
    expect((await readService('users/user')).style).toBe('RESOURCE');
  });

  it('keeps the comments and layout of config.yml, only adding the new line', async () => {
    const before = await readFile(join(project, 'config.yml'), 'utf8');
    await runTool(project, ['add', '-p', '/users', '-u', '/users', '-n', 'Users']);
    const after = await readFile(join(project, 'config.yml'), 'utf8');
    expect(after).toBe(before.replace('  - /monitoring/isAlive\n', '  - /monitoring/isAlive\n  - /users\n'));
    expect(after).toContain('# To add a service, run `rest-tool add`');
  });

  it('writes any name and description so that they read back exactly', async () => {
    const name = 'orders: v2 & <b>"quoted"</b> #1 ünï 🙂';
    const description = 'A & B <x>\n- not a list\n  key: value # not a comment\n\'single\' "double"\n';
    const result = await runTool(project, ['add', '-p', '/orders', '-u', '/orders', '-n', name, '-d', description]);
    expect(result.code).toBe(0);
    const service = await readService('orders');
    expect(service.name).toBe(`${name} service`);
    expect(service.description).toBe(description);
    expect(service.methods.GET.summary).toBe(`Get one ${name}`);
    await expect(loadProject({ projectDir: project })).resolves.toBeDefined();
  });

  it('keeps the anchors of the generated descriptor', async () => {
    await runTool(project, ['add', '-p', '/users', '-u', '/users', '-n', 'Users', '-t', 'COLLECTION']);
    const text = await readFile(join(project, 'services', 'users', 'service.yml'), 'utf8');
    expect(text).toContain('statusCode: &OkStatusCode 200');
    expect(text).toContain('statusCode: *OkStatusCode');
  });

  it('declares the uriTemplate parameters as URL parameters with a default', async () => {
    await runTool(project, ['add', '-p', '/users/user', '-u', '/users/{userId}/x/{id}', '-n', 'User']);
    const service = await readService('users/user');
    for (const method of Object.values(service.methods)) {
      const parameters = method.request?.parameters ?? [];
      expect(parameters.filter((p) => p.kind === 'URL').map((p) => p.name)).toEqual(
        expect.arrayContaining(['userId', 'id']),
      );
      expect(parameters.every((p) => p.default !== undefined)).toBe(true);
    }
  });

  it('keeps only the methods asked for with -m, and their mock files', async () => {
    await runTool(project, ['add', '-p', '/users/user', '-u', '/users/{id}', '-n', 'User', '-m', 'PUT,DELETE']);
    const text = await readFile(join(project, 'services', 'users', 'user', 'service.yml'), 'utf8');
    const service = parse(text) as Descriptor;
    expect(Object.keys(service.methods)).toEqual(['PUT', 'DELETE']);
    // The anchor lived in the removed GET: it moved to the first kept use.
    expect(text).toContain('&OkStatusCode 200');
    expect((await readdir(join(project, 'services', 'users', 'user'))).sort()).toEqual([
      'deleteResource-responseBody.json',
      'putResource-requestBody.json',
      'putResource-responseBody.json',
      'service.yml',
    ]);
  });

  it('uses the project templates when the project has them', async () => {
    const template = join(project, 'templates', 'services', 'OPERATION');
    await writeFile(
      join(template, 'service.yml'),
      'name: "custom {{name}}"\ndescription: "{{description}}"\nuriTemplate: "{{uriTemplate}}"\nmethods:\n  POST:\n    summary: s\n    responses: []\n',
    );
    await runTool(project, ['add', '-t', 'OPERATION', '-p', '/run', '-u', '/run', '-n', 'Run']);
    expect((await readService('run')).name).toBe('custom Run');
  });

  it('adds under a folder that does not exist yet, creating it', async () => {
    expect((await runTool(project, ['add', '-p', '/pmo/projects', '-u', '/projects', '-n', 'Projects'])).code).toBe(0);
    expect(await readdir(join(project, 'services', 'pmo', 'projects'))).toContain('service.yml');
  });

  it('lists every file written and the config edit with -v', async () => {
    const result = await runTool(project, ['add', '-v', '-t', 'OPERATION', '-p', '/run', '-u', '/run', '-n', 'Run']);
    expect(result.stdout.split('\n')).toEqual([
      `wrote ${join('services', 'run', 'service.yml')}`,
      `wrote ${join('services', 'run', 'postOperation-requestBody.json')}`,
      `wrote ${join('services', 'run', 'postOperation-responseBody.json')}`,
      'listed /run in config.yml',
      'added the OPERATION service /run (/run) to config.yml',
      '',
    ]);
  });

  it('reads another config file with -c, relative to the current folder', async () => {
    const result = await runTool(temp.dir, ['add', '-c', 'p/config.yml', '-p', '/users', '-u', '/users', '-n', 'U']);
    expect(result.code).toBe(0);
    expect(await readdir(join(project, 'services', 'users'))).toContain('service.yml');
  });

  describe('refuses, with exit 2 (the command line was not understood) and nothing written,', () => {
    it.each([
      ['a missing path', ['add', '-u', '/x', '-n', 'X'], /^error: missing required option -p, --path$/m],
      ['a missing uriTemplate', ['add', '-p', '/x', '-n', 'X'], /missing required option -u, --uriTemplate$/m],
      ['a missing name', ['add', '-p', '/x', '-u', '/x'], /missing required option -n, --name$/m],
      [
        'every missing option at once',
        ['add', '-t', 'RESOURCE'],
        /options -p, --path, -u, --uriTemplate, -n, --name$/m,
      ],
      ['an option without its value', ['add', '-u', '/x', '-n', 'X', '-p'], /'-p, --path <path>' argument missing/],
      ['an unknown type', ['add', '-t', 'FOO', '-p', '/x', '-u', '/x', '-n', 'X'], /must be one of OPERATION/],
      ['an unknown method', ['add', '-m', 'PATCH', '-p', '/x', '-u', '/x', '-n', 'X'], /comma-separated list/],
    ])('%s', async (_case, args, message) => {
      const before = await snapshotTree(temp.dir);
      const result = await runTool(project, args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(await snapshotTree(temp.dir)).toEqual(before);
    });
  });

  describe('refuses, with exit 1 and nothing written,', () => {
    it.each([
      ['a method the type lacks', ['add', '-m', 'POST', '-p', '/x', '-u', '/x', '-n', 'X'], /has no POST method/],
      ['a path escaping servicesRoot', ['add', '-p', '../../x', '-u', '/x', '-n', 'X'], /stay inside servicesRoot/],
      ['a path already listed', ['add', '-p', 'monitoring/isAlive/', '-u', '/x', '-n', 'X'], /already listed/],
      ['a uriTemplate without "/"', ['add', '-p', '/x', '-u', 'x', '-n', 'X'], /must start with "\/"/],
      ['a route already served', ['add', '-p', '/x', '-u', '/monitoring/isAlive', '-n', 'X'], /already served by/],
      ['an empty name', ['add', '-p', '/x', '-u', '/x', '-n', ' '], /name must not be empty/],
      ['a missing config file', ['add', '-c', 'nope.yml', '-p', '/x', '-u', '/x', '-n', 'X'], /nope.yml: cannot read/],
      [
        'a config.yml in a folder that is not a project',
        ['add', '-c', '../config.yml', '-p', '/x', '-u', '/x', '-n', 'X'],
        /^rest-tool: not a project folder \(no config\.yml in \S+\): .+ rest-tool create <name>\n$/,
      ],
    ])('%s', async (_case, args, message) => {
      const before = await snapshotTree(temp.dir);
      const result = await runTool(project, args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(await snapshotTree(temp.dir)).toEqual(before);
    });

    it('an existing folder that is not listed, which it never overwrites', async () => {
      await mkdir(join(project, 'services', 'users'));
      await writeFile(join(project, 'services', 'users', 'service.yml'), 'mine');
      const before = await snapshotTree(temp.dir);
      const result = await runTool(project, ['add', '-p', '/users', '-u', '/users', '-n', 'Users']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/exists already/);
      expect(await snapshotTree(temp.dir)).toEqual(before);
    });

    it('a path leading out of servicesRoot through a symbolic link', async () => {
      await mkdir(join(temp.dir, 'outside'));
      await symlink(join(temp.dir, 'outside'), join(project, 'services', 'link'));
      const before = await snapshotTree(temp.dir);
      const result = await runTool(project, ['add', '-p', '/link/x', '-u', '/x', '-n', 'X']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/symbolic link/);
      expect(await snapshotTree(temp.dir)).toEqual(before);
    });

    it('a config.yml whose services cannot be edited, leaving the service folder unwritten', async () => {
      const configFile = join(project, 'config.yml');
      await writeFile(
        configFile,
        (await readFile(configFile, 'utf8')).replace(
          'services:\n  - /monitoring/isAlive\n',
          'list: &s [/monitoring/isAlive]\nservices: *s\n',
        ),
      );
      const before = await snapshotTree(temp.dir);
      const result = await runTool(project, ['add', '-p', '/x', '-u', '/x', '-n', 'X']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/cannot add to services/);
      expect(await snapshotTree(temp.dir)).toEqual(before);
    });
  });
});
