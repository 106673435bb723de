import { spawn } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { makeTempDir, runTool } from '../__tests__/tool-helpers';

const root = resolve(__dirname, '../../..');
const fixtures = join(root, 'tool/src/__tests__/fixtures/import-oas');

describe('rest-tool generate-service', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeAll(async () => {
    temp = await makeTempDir();
  });
  afterAll(() => temp.remove());

  it('says what it wrote, and on the next run that it kept the handlers file', async () => {
    const first = await runTool(temp.dir, ['generate-service', join(root, 'person-service/person-api.yml'), 'persons']);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain('generated persons from');
    expect(first.stdout).toContain(': 7 operations\n');
    expect(first.stdout).toContain('  wrote src/handlers.ts\n');
    expect(first.stdout).toContain('  wrote src/main.ts\n');

    const again = await runTool(temp.dir, ['generate-service', join(root, 'person-service/person-api.yml'), 'persons']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('  wrote src/generated/contract.ts\n');
    expect(again.stdout).toContain('  kept src/handlers.ts (yours: never overwritten)\n');
    expect(again.stdout).not.toContain('wrote src/main.ts');
  });

  it('exits 0 and quietly, its work done, when the reader of its output has gone (`rest-tool … | head -1`)', async () => {
    // The built program as a real process, its stdout a pipe whose reading end is closed before it writes a line.
    const child = spawn(
      process.execPath,
      [join(root, 'tool/bin/rest-tool.js'), 'generate-service', join(root, 'person-service/person-api.yml'), 'piped'],
      { cwd: temp.dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(await readdir(join(temp.dir, 'piped/src/generated'))).toEqual(['api-types.ts', 'contract.ts']);
  });

  it('types a Swagger 2.0 document through its conversion to OpenAPI 3.0', async () => {
    const result = await runTool(temp.dir, ['generate-service', join(fixtures, 'petstore-swagger.json'), 'pets2']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const types = await readFile(join(temp.dir, 'pets2/src/generated/api-types.ts'), 'utf8');
    expect(types).toContain('export interface paths {');
    const contract = await readFile(join(temp.dir, 'pets2/src/generated/contract.ts'), 'utf8');
    expect(contract).toContain('"dialect": "2.0"');
  });

  it('refuses a file that is not an OpenAPI document in one line, exit 1, writing nothing', async () => {
    const result = await runTool(temp.dir, ['generate-service', join(root, 'README.md'), 'not-api']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rest-tool: .*README\.md(:\d+)* +error +[^\n]+\n$/);
    expect(await readdir(temp.dir)).not.toContain('not-api');
  });

  it('refuses a document as the gateway would, one line per error at its file and line, fetching no URL', async () => {
    const api = join(temp.dir, 'broken-api.yml');
    // One operation per `$ref` (on its last line: lines 10 and 17): a pointer to nothing, and a URL.
    const operation = (path: string, ref: string): string[] =>
      [
        `${path}:`,
        'get:',
        'responses:',
        "'200':",
        'description: ok',
        'content:',
        `application/json: { schema: { $ref: '${ref}' } }`,
      ].map((line, at) => `${'  '.repeat([1, 2, 3, 4, 5, 5, 6][at])}${line}`);
    const lines = [
      'openapi: 3.0.3',
      'info: { title: broken, version: "1" }',
      'paths:',
      ...operation('/a', '#/components/schemas/Missing'),
      ...operation('/b', 'http://127.0.0.1:9/schema.json'),
    ];
    await writeFile(api, `${lines.join('\n')}\n`);
    const result = await runTool(temp.dir, ['generate-service', 'broken-api.yml', 'broken']);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^rest-tool: broken-api\.yml:10:\d+ +error +paths\.\/a\.get\..*Missing/),
      expect.stringMatching(/^rest-tool: broken-api\.yml:17:\d+ +error +paths\.\/b\.get\..*URL/),
    ]);
    expect(await readdir(temp.dir)).not.toContain('broken');
  });

  it("reads a $ref outside the API file's folder only with --allow-outside-refs", async () => {
    await mkdir(join(temp.dir, 'api'), { recursive: true });
    await mkdir(join(temp.dir, 'shared'), { recursive: true });
    await writeFile(join(temp.dir, 'shared/thing.yml'), 'type: object\n');
    const schema = "{ $ref: '../shared/thing.yml' }";
    await writeFile(
      join(temp.dir, 'api/api.yml'),
      [
        'openapi: 3.0.3',
        'info: { title: outside, version: "1" }',
        'paths:',
        '  /things:',
        '    get:',
        '      responses:',
        "        '200':",
        '          description: ok',
        `          content: { application/json: { schema: ${schema} } }`,
      ].join('\n'),
    );
    const refused = await runTool(temp.dir, ['generate-service', 'api/api.yml', 'inside-only']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^rest-tool: .*cannot resolve a \$ref: .*shared\/thing\.yml .*outside/);
    expect(await readdir(temp.dir)).not.toContain('inside-only');

    const allowed = await runTool(temp.dir, ['generate-service', 'api/api.yml', 'outside', '--allow-outside-refs']);
    expect(allowed).toMatchObject({ code: 0, stderr: '' });
    // What the document made the tool read is named, the file outside the folder among it.
    const read = allowed.stdout.split('\n').filter((line) => line.includes(' read '));
    expect(read.map((line) => line.trim())).toEqual(['read api/api.yml', 'read shared/thing.yml']);
  });
});
