import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { GATEWAY_MAIN, runGateway } from '../__tests__/run-gateway';

// Written in YAML so that the warnings' lines and columns are those a person sees.
const API = `openapi: 3.0.3
info:
  title: pets
  version: '1'
paths:
  /pets:
    get:
      responses:
        '200':
          description: pets
          content:
            application/json:
              schema:
                type: object
                required: [name]
                properties:
                  name: { type: string }
                  born: { type: string, format: date }
                  owner:
                    nullable: true
                    allOf:
                      - { type: object, properties: { id: { type: integer } } }
              examples:
                rex:
                  value: { name: 42 }
                fido:
                  value: { name: Fido, born: 'not a date' }
                tom:
                  value: { name: Tom, owner: { id: 'x' } }
                good:
                  value: { name: Kim, born: '2020-02-29', owner: null }
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-example-warnings-'));
  await writeFile(join(dir, 'pets.yml'), API);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('restbus-gateway -m --check on examples that break their own schema', () => {
  it('warns of each one at its file, line and column, and still serves the document', async () => {
    const file = join(dir, 'pets.yml');
    const run = await runGateway(['--check', '-m', '-r', file]);
    const where = 'paths./pets.get.responses.200.content.application/json.examples';
    const said = 'the example does not match its schema, and -m answers with it';
    expect(run.stdout).toContain(`${file}:25:19  warning  ${where}.rex.value: ${said}: /name must be string`);
    expect(run.stdout).toContain(
      `${file}:27:19  warning  ${where}.fido.value: ${said}: /born must match format "date"`,
    );
    expect(run.stdout).toContain(`${file}:29:19  warning  ${where}.tom.value: ${said}: /owner/id must be integer`);
    expect(run.stdout).not.toContain('examples.good');
    expect(run.stdout).toContain('1 operation can be served');
    expect(run.code).toBe(0);
  });

  it('refuses the document with --strict, as any warning', async () => {
    const run = await runGateway(['--check', '-m', '--strict', '-r', join(dir, 'pets.yml')]);
    expect(run.stdout).toContain('error  paths./pets.get.responses.200.content.application/json.examples.rex.value');
    expect(run.code).toBe(1);
  });

  it('says nothing of examples without -m: nothing answers with them', async () => {
    const run = await runGateway(['--check', '-r', join(dir, 'pets.yml')]);
    expect(run.stdout).not.toContain('the example does not match its schema');
  });
});

describe('restbus-gateway -m started on examples that break their own schema', () => {
  it('logs each one as a warning at start, at its file, line and column', async () => {
    const file = join(dir, 'pets.yml');
    const child = spawn(process.execPath, [GATEWAY_MAIN, '-m', '-r', file, '-p', '0', '--log-format', 'json']);
    const warnings: Array<{ diagnostic?: { line?: number; column?: number; path?: string } }> = [];
    try {
      for await (const line of createInterface({ input: child.stdout })) {
        const entry = JSON.parse(line) as { msg?: string; level?: number; diagnostic?: { line?: number } };
        if (entry.msg === 'API checked for warnings') break; // warnings follow the listening line
        if (entry.level === 40 && entry.diagnostic) warnings.push(entry);
      }
    } finally {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    const where = 'paths./pets.get.responses.200.content.application/json.examples';
    expect(warnings.map(({ diagnostic }) => diagnostic)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: `${where}.rex.value`, line: 25, column: 19 }),
        expect.objectContaining({ path: `${where}.fido.value`, line: 27, column: 19 }),
        expect.objectContaining({ path: `${where}.tom.value`, line: 29, column: 19 }),
      ]),
    );
  });
});
