import { copyFile, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadProject } from '@restbus/project-format';
import { makeTempDir, runTool, snapshotTree } from './tool-helpers';

const sample = join(__dirname, 'fixtures', 'services.json');

describe('rest-tool add-bulk', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let project: string;
  beforeEach(async () => {
    temp = await makeTempDir();
    await runTool(temp.dir, ['create', 'p']);
    project = join(temp.dir, 'p');
  });
  afterEach(() => temp.remove());

  it('adds the four services of the upstream sample, in order, all listed in config.yml', async () => {
    const result = await runTool(project, ['add-bulk', '-s', sample]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('4 services added');
    const loaded = await loadProject({ projectDir: project });
    expect(loaded.services.map((service) => service.path)).toEqual([
      '/monitoring/isAlive',
      '/orders',
      '/orders/order',
      '/filterOrders',
      '/pmo/projects',
    ]);
    expect(await readdir(join(project, 'services', 'pmo', 'projects'))).toContain('getCollection-responseBody.json');
  });

  it('reads a YAML list as well', async () => {
    await writeFile(
      join(project, 'bulk.yml'),
      '- type: OPERATION\n  path: /run\n  uriTemplate: /run\n  name: "Run: now"\n  description: |\n    Runs.\n',
    );
    expect((await runTool(project, ['add-bulk', '-s', 'bulk.yml'])).code).toBe(0);
    expect(await readdir(join(project, 'services', 'run'))).toContain('service.yml');
  });

  it('reports every problem of every entry, with file and line, and adds none', async () => {
    await writeFile(
      join(project, 'bulk.json'),
      JSON.stringify(
        [
          { type: 'COLLECTION', path: '/fine', uriTemplate: '/fine', name: 'Fine' },
          { type: 'WRONG', path: '/a', uriTemplate: '/a', name: 'A' },
          { path: '../out', uriTemplate: '/b', name: 'B' },
          { path: '/c', uriTemplate: 'c', name: 'C', extra: 1 },
          { path: '/monitoring/isAlive', uriTemplate: '/d', name: 'D' },
          { path: '/fine', uriTemplate: '/e', name: 'E' },
          { path: '/f', name: 'F', methods: ['PATCH'] },
          'not an object',
        ],
        null,
        2,
      ),
    );
    const before = await snapshotTree(temp.dir);
    const result = await runTool(project, ['add-bulk', '-s', 'bulk.json']);
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^rest-tool: bulk\.json:9: \/1\/type: must be one of "OPERATION"/),
      expect.stringMatching(/^rest-tool: bulk\.json:\d+: \/2: the path "\.\.\/out" must not contain/),
      expect.stringMatching(/^rest-tool: bulk\.json:\d+: \/3\/extra: is not allowed here/),
      expect.stringMatching(/^rest-tool: bulk\.json:\d+: \/3: the uriTemplate "c" must start with/),
      expect.stringMatching(/^rest-tool: bulk\.json:\d+: \/4: \/monitoring\/isAlive is already listed/),
      expect.stringMatching(/^rest-tool: bulk\.json:\d+: \/5: \/fine is given twice/),
      expect.stringMatching(/^rest-tool: bulk\.json:\d+: \/6: must have required property 'uriTemplate'/),
      expect.stringMatching(
        /^rest-tool: bulk\.json:\d+: \/6\/methods\/0: must be one of "GET", "PUT", "POST", "DELETE"$/,
      ),
      'rest-tool: bulk.json:42: /7: must be object',
      'rest-tool: nothing was added',
    ]);
    expect(await snapshotTree(temp.dir)).toEqual(before);
  });

  it('removes what it created when a write fails midway, leaving config.yml as it was', async () => {
    // services/blocked is a file: the second service's folder cannot be made below it.
    await writeFile(join(project, 'services', 'blocked'), 'a file, not a folder');
    await writeFile(
      join(project, 'bulk.json'),
      JSON.stringify([
        { path: '/first', uriTemplate: '/first', name: 'First' },
        { path: '/blocked/second', uriTemplate: '/second', name: 'Second' },
      ]),
    );
    const before = await snapshotTree(temp.dir);
    const result = await runTool(project, ['add-bulk', '-s', 'bulk.json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rest-tool: nothing was added: /);
    expect(await snapshotTree(temp.dir)).toEqual(before);
  });

  it.each([
    ['a missing file', ['add-bulk', '-s', 'none.json'], /none\.json: cannot read: no such file/],
    ['a file that is not a list', ['add-bulk', '-s', 'object.json'], /object\.json:1: \/: must be array/],
    ['a file of another kind', ['add-bulk', '-s', 'bulk.txt'], /ends in \.json, \.yml or \.yaml/],
    ['a broken JSON file', ['add-bulk', '-s', 'broken.json'], /broken\.json:\d+: /],
  ])('refuses %s with exit 1', async (_case, args, message) => {
    await writeFile(join(project, 'object.json'), '{"type": "RESOURCE"}');
    await writeFile(join(project, 'broken.json'), '[{"path": "/x",]');
    await copyFile(sample, join(project, 'bulk.txt'));
    const before = await snapshotTree(temp.dir);
    const result = await runTool(project, args);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(await snapshotTree(temp.dir)).toEqual(before);
    expect(await readFile(join(project, 'config.yml'), 'utf8')).not.toContain('/orders');
  });

  it('refuses a command line without -s with exit 2', async () => {
    const result = await runTool(project, ['add-bulk']);
    expect(result).toMatchObject({ code: 2, stderr: 'error: missing required option -s, --services\n' });
  });

  it('says it is not in a project folder before reading the list', async () => {
    const result = await runTool(temp.dir, ['add-bulk', '-s', 'none.json']);
    expect(result).toMatchObject({
      code: 1,
      stderr:
        'rest-tool: not a project folder (no config.yml in the current folder): run rest-tool in a project folder, name its config.yml with -c, or make one with rest-tool create <name>\n',
    });
  });
});
