import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useTempDir } from '../mock/__tests__/start-mock-process';
import { runGateway } from './run-gateway';

// Two operations no dialect's reading makes compilable (3.0 has no `type: file`), between two that compile.
const api = `openapi: 3.0.3
info: { title: checked, version: '1' }
paths:
  /files:
    post:
      operationId: sendFile
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { upload: { type: file } } }
      responses:
        '204': { description: kept }
  /things:
    get:
      operationId: listThings
      parameters:
        - { name: n, in: query, schema: { type: integer, maximum: 5, exclusiveMaximum: true } }
      responses:
        '200': { description: things }
  /pictures:
    put:
      operationId: putPicture
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { data: { type: file } } }
      responses:
        '204': { description: kept }
`;

describe('restbus-gateway --check --validate', () => {
  const dir = useTempDir('restbus-check-validate-');
  let file = '';

  beforeAll(async () => {
    file = join(dir.path, 'checked.yaml');
    await writeFile(file, api);
  });

  it('fails, listing every operation --validate could not check with its file, line and keyword', async () => {
    const run = await runGateway(['--check', '--validate', '-r', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${file}:5:`);
    expect(run.stdout).toMatch(
      /error {2}paths\.\/files\.post: POST \/files: --validate cannot check it: .*\(keyword type\)/,
    );
    expect(run.stdout).toContain('--validateUnchecked "sendFile"');
    expect(run.stdout).toContain(`${file}:21:`);
    expect(run.stdout).toContain('PUT /pictures: --validate cannot check it');
    expect(run.stdout).not.toContain('GET /things: --validate');
    expect(run.stdout).toContain('2 errors');
    expect(run.stdout).toContain('cannot be served');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('passes without --validate, which compiles no schema', async () => {
    const run = await runGateway(['--check', '-r', file]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('--validate cannot check it');
  });

  it('passes with a warning for each operation --validateUnchecked names, and fails on one it leaves out', async () => {
    const both = await runGateway([
      '--check',
      '--validate',
      '-r',
      file,
      '--validateUnchecked',
      'sendFile',
      'PUT /pictures',
    ]);
    expect(both.code).toBe(0);
    expect(both.stdout).toContain('warning  paths./files.post: POST /files: served unchecked (--validateUnchecked)');
    expect(both.stdout).toContain(
      'warning  paths./pictures.put: PUT /pictures: served unchecked (--validateUnchecked)',
    );
    expect(both.stdout).toContain('3 operations can be served');

    const one = await runGateway(['--check', '--validate', '-r', file, '--validateUnchecked', 'sendFile']);
    expect(one.code).toBe(1);
    expect(one.stdout).toContain('PUT /pictures: --validate cannot check it');
    expect(one.stdout).toContain('1 error, 3 warnings');
  });
});
