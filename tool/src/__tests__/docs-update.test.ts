import { mkdir, mkdtemp, readFile, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateDocs } from '../docs';
import { FIXTURE_FILES, PROJECT_CONFIG, writeFiles } from '../docs/__tests__/fixture-project';
import { generateTests } from '../testgen';
import { makeTempDir, runTool, snapshotTree } from './tool-helpers';

const generators = { generateDocs, generateTests };
// Above Linux's largest pid_max (2^22): no process can have it, so its temp files are a killed run's.
const DEAD_PID = 4_194_305;

// `rest-tool docs -u` as users run it, on real projects in temp folders: it replaces only what it generated.
describe('rest-tool docs -u', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeAll(async () => {
    temp = await makeTempDir();
  });
  afterAll(() => temp.remove());

  // The fixture names one mock body it lacks (for the warning's test): given here, so the other runs warn of nothing.
  const COMPLETE_FILES = { ...FIXTURE_FILES, 'services/orders/order/no-such-file.json': '{}' };
  const createProject = async (files: Record<string, string> = COMPLETE_FILES): Promise<string> =>
    writeFiles(await mkdtemp(join(temp.dir, 'project-')), files);
  const docs = (dir: string): ReturnType<typeof runTool> => runTool(dir, ['docs', '-u'], generators);
  const setVersion = (dir: string, version: string): Promise<void> =>
    writeFile(join(dir, 'config.yml'), PROJECT_CONFIG.replace('apiVersion: v1.2.3', `apiVersion: ${version}`));

  it('names each mock body file a descriptor refers to that does not exist on stderr, and still writes the docs', async () => {
    const dir = await createProject(FIXTURE_FILES);
    const result = await docs(dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^rest-tool: warning: services\/orders\/order\/service\.yml:\d+: \/methods\/DELETE\/responses\/0\/mockBody: the file no-such-file\.json does not exist$/m,
    );
    expect(result.stdout).toMatch(/wrote \d+ documentation files into docs\//);
  });

  it('keeps a hand-written docs/index.html, names it with what to do, exits 1 and writes nothing at all', async () => {
    const dir = await createProject({ ...COMPLETE_FILES, 'docs/index.html': '<h1>our own start page</h1>\n' });
    const before = await snapshotTree(dir);
    const result = await docs(dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^rest-tool: docs\/index\.html: .*move it out of docs\/ \(or delete it\).*--force/m);
    expect(result.stderr).toMatch(/^rest-tool: nothing was written/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await snapshotTree(dir)).toEqual(before);
  });

  it('replaces a hand-written docs/index.html when asked to with --force, and still refuses a link out', async () => {
    const dir = await createProject({ ...COMPLETE_FILES, 'docs/index.html': '<h1>our own start page</h1>\n' });
    const result = await runTool(dir, ['docs', '-u', '--force'], generators);
    expect(result.code).toBe(0);
    expect(await readFile(join(dir, 'docs/index.html'), 'utf8')).not.toContain('our own start page');
    const linked = await createProject();
    await symlink(await mkdtemp(join(temp.dir, 'outside-')), join(linked, 'docs'));
    expect((await runTool(linked, ['docs', '-u', '--force'], generators)).code).toBe(1);
  });

  it('refuses a docs folder that is a symbolic link leading out of the project, and writes nothing there', async () => {
    const dir = await createProject();
    const outside = await mkdtemp(join(temp.dir, 'outside-'));
    await writeFile(join(outside, 'index.html'), 'not the project’s');
    await symlink(outside, join(dir, 'docs'));
    const before = await snapshotTree(temp.dir);
    const result = await docs(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rest-tool: docs: .*symbolic link.*outside the project/m);
    expect(await snapshotTree(temp.dir)).toEqual(before);
  });

  it('refuses a folder inside docs/ that is a symbolic link leading out of it, and writes nothing', async () => {
    const dir = await createProject();
    const outside = await mkdtemp(join(temp.dir, 'outside-'));
    await mkdir(join(dir, 'docs'));
    await symlink(outside, join(dir, 'docs', 'services'));
    const before = await snapshotTree(temp.dir);
    const result = await docs(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rest-tool: docs\/services: .*symbolic link/m);
    expect(await snapshotTree(temp.dir)).toEqual(before);
    expect(await readdir(outside)).toEqual([]);
  });

  it('replaces its own files on a second run', async () => {
    const dir = await createProject();
    expect((await docs(dir)).code).toBe(0);
    await setVersion(dir, 'v2.0.0');
    const second = await docs(dir);
    expect(second).toMatchObject({ code: 0, stderr: '' });
    expect(second.stdout).toMatch(/^wrote \d+ documentation files? into docs\/\n$/);
    expect(await readFile(join(dir, 'docs', 'index.html'), 'utf8')).toContain('v2.0.0');
  });

  it('reports a generated file edited by hand, exits 1 and writes nothing, not even the other files', async () => {
    const dir = await createProject();
    expect((await docs(dir)).code).toBe(0);
    await writeFile(join(dir, 'docs', 'services', 'orders', 'service.html'), '<p>my notes on orders</p>\n');
    await setVersion(dir, 'v2.0.0');
    const before = await snapshotTree(dir);
    const result = await docs(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^rest-tool: docs\/services\/orders\/service\.html: changed since rest-tool docs wrote it; .*move/m,
    );
    expect(await snapshotTree(dir)).toEqual(before);
  });

  it('removes the temp files a killed run left behind, and keeps a temp file another run is writing', async () => {
    const dir = await createProject();
    expect((await docs(dir)).code).toBe(0);
    const leftovers = [
      `docs/.index.html.rest-tool-${DEAD_PID}-0123abcd.tmp`,
      // The same pid as this run: a container starts every run with the same pid, so it is a killed earlier run's.
      `docs/services/orders/.service.html.rest-tool-${process.pid}-89abcdef.tmp`,
      // Named by rest-tool before temp files were named for it.
      `docs/services/orders/order/.service.yml.${DEAD_PID}.0a1b2c3d.tmp`,
    ];
    const old = `docs/assets/.docs.css.rest-tool-1-deadbeef.tmp`;
    const inFlight = `docs/.index.html.rest-tool-1-feedf00d.tmp`;
    const mine = ['docs/notes.tmp', `docs/.notes.md.${DEAD_PID}.0a1b2c3d.tmp`];
    await writeFiles(dir, Object.fromEntries([...leftovers, old, inFlight, ...mine].map((path) => [path, 'half'])));
    // pid 1 is always running; a temp file written long ago (in 2000) is still a leftover, however its pid is in use
    // now.
    const longAgo = new Date('2000-01-01T00:00:00Z');
    await utimes(join(dir, old), longAgo, longAgo);
    const result = await docs(dir);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const files = Object.keys(await snapshotTree(dir));
    for (const path of [...leftovers, old]) expect(files).not.toContain(path);
    for (const path of [inFlight, ...mine]) expect(files).toContain(path);
  });

  it('takes over docs/ made before the manifest when its files are what it would write, and refuses one that is not', async () => {
    const dir = await createProject();
    expect((await docs(dir)).code).toBe(0);
    await rm(join(dir, 'docs', '.rest-tool-docs.json'));
    expect(await docs(dir)).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(await readFile(join(dir, 'docs', '.rest-tool-docs.json'), 'utf8'))).toHaveProperty([
      'files',
      'index.html',
    ]);

    await rm(join(dir, 'docs', '.rest-tool-docs.json'));
    await setVersion(dir, 'v2.0.0');
    const before = await snapshotTree(dir);
    const result = await docs(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rest-tool: docs\/index\.html: .*\.rest-tool-docs\.json.*move it out of docs\//m);
    expect(await snapshotTree(dir)).toEqual(before);
  });

  it('refuses a folder where it writes a file, and a manifest it cannot read, writing nothing', async () => {
    const dir = await createProject({
      ...COMPLETE_FILES,
      'docs/index.html/mine.txt': 'a folder named index.html',
      'docs/.rest-tool-docs.json': '{ not json',
    });
    const before = await snapshotTree(dir);
    const result = await docs(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rest-tool: docs\/index\.html: a folder where rest-tool docs writes a file/m);
    expect(result.stderr).toMatch(/^rest-tool: docs\/\.rest-tool-docs\.json: .*delete it/m);
    expect(await snapshotTree(dir)).toEqual(before);
  });

  it('writes a copied mock file whose name is as long as a file name may be', async () => {
    const long = `${'x'.repeat(250)}.json`;
    const dir = await createProject({
      ...COMPLETE_FILES,
      'services/orders/service.yml': FIXTURE_FILES['services/orders/service.yml'].replace(
        'mockBody: getCollection-responseBody.json',
        `mockBody: ${long}`,
      ),
      [`services/orders/${long}`]: '[]\n',
    });
    expect(await docs(dir)).toMatchObject({ code: 0, stderr: '' });
    expect(await readFile(join(dir, 'docs', 'services', 'orders', long), 'utf8')).toBe('[]\n');
  });
});
