import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateDocs } from '../docs';
import { generateTests } from '../testgen';
import { makeTempDir, runNode, runTool, type RunResult } from './tool-helpers';

/** The built program, as `bin/rest-tool-docker` runs it in the tool container (with the user's folder as cwd). */
const TOOL_MAIN = join(__dirname, '..', '..', 'dist', 'main.js');
const PETSTORE = join(__dirname, 'fixtures', 'import-oas', 'petstore.yaml');

// In the tool container the user's folder is /work: a message naming /work/… names a path the user does not have.
describe('rest-tool messages, run in a folder as the tool container runs it', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let top: string;
  let project: string;
  const outputs: string[] = [];
  // In this process, given the folder as its current one, which is not this process's: a path made relative to
  // process.cwd() instead, or left absolute, shows. (A process per command cost 1-1.5 s of CPU each; the first test
  // runs the built program as the container does.)
  const tool = async (cwd: string, args: string[]): Promise<RunResult> => {
    const result = await runTool(cwd, args, { generateDocs, generateTests }, { PATH: process.env.PATH ?? '' });
    outputs.push(`$ rest-tool ${args.join(' ')}\n${result.stdout}${result.stderr}`);
    return result;
  };

  beforeAll(async () => {
    temp = await makeTempDir();
    top = await realpath(temp.dir);
    project = join(top, 'p');
  });
  afterAll(() => temp.remove());

  it('name the files create writes, and a folder that exists, relative to the current folder', async () => {
    const created = await runNode(top, [TOOL_MAIN, 'create', 'p', '-v']);
    outputs.push(`$ rest-tool create p -v\n${created.stdout}${created.stderr}`);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`wrote ${join('p', 'server', 'monitoring.js')}\n`);
    expect(created.stdout).toContain('created the project p\n');
    expect(await tool(top, ['create', 'p'])).toMatchObject({
      code: 1,
      stderr: 'rest-tool: p exists already; nothing was written\n',
    });
  });

  it('name the files add and add-bulk write relative to the project folder, in any order of nesting', async () => {
    const resource = await tool(project, ['add', '-v', '-p', '/orders/order', '-u', '/orders/{id}', '-n', 'Order']);
    expect(resource).toMatchObject({ code: 0, stderr: '' });
    expect(resource.stdout).toContain(`wrote ${join('services', 'orders', 'order', 'service.yml')}\n`);
    const collection = await tool(project, [
      'add',
      '-v',
      '-t',
      'COLLECTION',
      '-p',
      '/orders',
      '-u',
      '/orders',
      '-n',
      'O',
    ]);
    expect(collection).toMatchObject({ code: 0, stderr: '' });
    expect(collection.stdout).toContain(`wrote ${join('services', 'orders', 'service.yml')}\n`);
    await writeFile(join(project, 'bulk.json'), JSON.stringify([{ path: '/run', uriTemplate: '/run', name: 'Run' }]));
    const bulk = await tool(project, ['add-bulk', '-v', '-s', 'bulk.json']);
    expect(bulk).toMatchObject({ code: 0, stderr: '' });
    expect(bulk.stdout).toContain(`wrote ${join('services', 'run', 'service.yml')}\n`);
  });

  it('name the service in the way of an add by its file in the project', async () => {
    const again = await tool(project, ['add', '-t', 'COLLECTION', '-p', '/orders', '-u', '/orders', '-n', 'O']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`, in ${join('services', 'orders', 'service.yml')}): give the new service another`);
  });

  it('name the templates and the docs folder relative to the project with docs -v and test -v', async () => {
    const docs = await tool(project, ['docs', '-u', '-v']);
    expect(docs).toMatchObject({ code: 0, stderr: '' });
    expect(docs.stdout).toContain(`templates: ${join('templates', 'docs')}, then rest-tool's templates/docs\n`);
    expect(docs.stdout).toMatch(/^\d+ files written into docs, \d+ unchanged$/m);
    expect(await tool(project, ['validate'])).toMatchObject({ code: 0, stdout: 'the project is valid: 4 services\n' });
    expect(await tool(top, ['validate', '-c', join('p', 'config.yml')])).toMatchObject({
      code: 0,
      stdout: 'the project in p is valid: 4 services\n',
    });
    const tests = await tool(project, ['test', '-u', '-v']);
    expect(tests).toMatchObject({ code: 0 });
    expect(tests.stdout).toContain(`templates: ${join('templates', 'test')}, then rest-tool's templates/test\n`);
  });

  it('name the file export-oas writes, or cannot write, relative to the current folder', async () => {
    expect(await tool(project, ['export-oas', '-o', 'api.yml'])).toMatchObject({
      code: 0,
      stdout: 'wrote 4 paths to api.yml\n',
    });
    // config.yml is a file: no folder can be made there.
    const blocked = await tool(project, ['export-oas', '-o', join('config.yml', 'api.yml')]);
    expect(blocked).toMatchObject({
      code: 1,
      stderr: "rest-tool: cannot write config.yml/api.yml: EEXIST: file already exists, mkdir 'config.yml'\n",
    });
  });

  it('say "the current folder" when it is not a project, for every command that works on one', async () => {
    const empty = join(top, 'empty');
    await mkdir(empty);
    for (const args of [['validate'], ['docs', '-u'], ['test', '-u'], ['export-oas'], ['add-bulk', '-s', 'x.json']]) {
      expect(await tool(empty, args)).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^rest-tool: not a project folder \(no config\.yml in the current folder\): /),
      });
    }
  });

  it('name the folder import-oas writes, and one in the way, relative to the current folder', async () => {
    const imported = await tool(top, ['import-oas', '-v', PETSTORE, 'api']);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`listed 4 services in ${join('api', 'config.yml')}\n`);
    expect(imported.stdout).toMatch(/^imported \S+petstore\.yaml \(OpenAPI 3\.0\.3\) into api: /m);
    await mkdir(join(top, 'full'));
    await writeFile(join(top, 'full', 'x'), '');
    expect(await tool(top, ['import-oas', PETSTORE, 'full'])).toMatchObject({
      code: 1,
      stderr: 'rest-tool: full exists and is not empty; nothing was written\n',
    });
  });

  it("name the other files an OpenAPI file's $refs name relative to the current folder", async () => {
    await mkdir(join(top, 'spec'));
    const ref = (target: string): string =>
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: {
          '/a': {
            get: {
              responses: {
                '200': { description: 'ok', content: { 'application/json': { schema: { $ref: target } } } },
              },
            },
          },
        },
      });
    await writeFile(join(top, 'spec', 'broken-ref.json'), ref('broken.yaml#/X'));
    await writeFile(join(top, 'spec', 'broken.yaml'), 'X:\n  type: [object\n');
    await writeFile(join(top, 'spec', 'missing-ref.json'), ref('missing.yaml#/X'));
    const broken = await tool(top, ['import-oas', join('spec', 'broken-ref.json'), 'b']);
    expect(broken.stderr).toMatch(/^rest-tool: spec\/broken\.yaml:3: not valid YAML or JSON: /);
    const missing = await tool(top, ['import-oas', join('spec', 'missing-ref.json'), 'm']);
    expect(missing.stderr).toBe(
      'rest-tool: spec/missing-ref.json:1: paths./a.get.responses.200.content.application/json.schema: ' +
        'cannot resolve a $ref: spec/missing.yaml does not exist\n',
    );
  });

  it('never name the absolute path of the folder they run in', () => {
    const lines = outputs.join('\n').split('\n');
    expect(lines.filter((line) => line.includes(top))).toEqual([]);
  });
});
