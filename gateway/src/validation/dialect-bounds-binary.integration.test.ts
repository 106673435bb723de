import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runGateway } from '../__tests__/run-gateway';
import { startMockProcess, useTempDir, type MockProcess } from '../mock/__tests__/start-mock-process';

// An OpenAPI 3.0 document as 3.0 writes an exclusive bound (draft 4's boolean), beside a plain integer body.
const bounded = `openapi: 3.0.3
info: { title: bounds, version: '1' }
paths:
  /things:
    post:
      operationId: makeThing
      parameters:
        - { name: n, in: query, schema: { type: integer, maximum: 5, exclusiveMaximum: true } }
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { id: { type: integer } } }
      responses:
        '201': { description: made, content: { application/json: { example: { id: 1 } } } }
`;

// A 3.0 schema no dialect's reading makes compilable: 3.0 has no `type: file`.
const broken = `openapi: 3.0.3
info: { title: broken, version: '1' }
paths:
  /files:
    post:
      operationId: sendFile
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                upload: { type: file }
      responses:
        '204': { description: kept }
`;

const post = (url: string, path: string, body: string): Promise<Response> =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('gateway -m --validate on OpenAPI 3.0 schemas, as the binary runs', () => {
  const dir = useTempDir('restbus-dialect-bounds-');
  let gateway: MockProcess | undefined;

  afterEach(() => {
    gateway?.child.kill();
    gateway = undefined;
  });

  it('refuses a query value on an exclusive bound and a body whose integer is text, and takes what fits', async () => {
    const file = join(dir.path, 'bounded.yaml');
    await writeFile(file, bounded);
    gateway = await startMockProcess(file, ['--validate']);
    const onBound = await post(gateway.url, '/things?n=5', '{"id":1}');
    expect(onBound.status).toBe(400);
    expect(await onBound.json()).toMatchObject({
      code: 'REQUEST_INVALID',
      problems: [{ location: 'query.n', message: 'must be < 5' }],
    });
    const textId = await post(gateway.url, '/things?n=4', '{"id":"x"}');
    expect(textId.status).toBe(400);
    expect(await textId.json()).toMatchObject({ problems: [{ location: 'body/id', message: 'must be integer' }] });
    expect((await post(gateway.url, '/things?n=4', '{"id":1}')).status).toBe(201);
  });

  it('stops at start, naming the file, the line of its operation and the keyword, when a schema cannot be compiled', async () => {
    const file = join(dir.path, 'broken.yaml');
    await writeFile(file, broken);
    const run = await runGateway(['-r', file, '-m', '-p', '0', '--validate', '--log-format', 'json']);
    expect(run.code).not.toBe(0);
    const said = `${run.stdout}${run.stderr}`;
    expect(said).toContain(`${file}:5: POST /files: --validate cannot check it`);
    expect(said).toContain('(keyword type)');
    expect(said).toContain('--validateUnchecked "sendFile"');
  });

  it('serves the operation unchecked when --validateUnchecked names it, and says so', async () => {
    const file = join(dir.path, 'broken.yaml');
    await writeFile(file, broken);
    gateway = await startMockProcess(file, ['--validate', '--validateUnchecked', 'sendFile']);
    expect((await post(gateway.url, '/files', '{"upload":7}')).status).toBe(204);
  });
});
