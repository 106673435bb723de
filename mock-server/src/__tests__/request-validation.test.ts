import { join } from 'node:path';
import { runMockMain } from './run-mock-main';
import { shopConfig, type Files } from './sample-project';
import { startMockProgram, useMockProgram } from './start-mock-program';

const customerSchema = JSON.stringify({
  $schema: 'http://json-schema.org/draft-04/schema#',
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1 }, age: { type: 'integer', minimum: 0 } },
});

const files = (environment = '', extra: Files = {}): Files => ({
  'server/config.yml': `environments:\n  default:\n    restapiRoot: ..\n${environment}`,
  'config.yml': shopConfig(['/customers', '/customers/customer']),
  'services/customers/service.yml': `name: Customers
description: The customers
style: COLLECTION
uriTemplate: /customers
methods:
  GET:
    summary: List
    request:
      parameters:
        - { name: limit, kind: QUERY, type: integer, required: true, summary: page size }
        - { name: X-Api-Key, kind: HEADER, type: string, required: true, summary: the caller }
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: list.json }
  POST:
    summary: Add
    request:
      validationSchema: customer-schema.json
      parameters:
        - { name: vip, kind: BODY, type: boolean, required: false, summary: a flag }
    responses:
      - { name: OK, statusCode: 201, reason: created, mockBody: created.json }
`,
  'services/customers/list.json': '[{"id":1,"name":"Ada"}]\n',
  'services/customers/created.json': '{"id":2}\n',
  'services/customers/customer-schema.json': customerSchema,
  'services/customers/customer/service.yml': `name: Customer
description: One customer
style: RESOURCE
uriTemplate: /customers/{customerId}
methods:
  GET:
    summary: Read
    request:
      parameters:
        - { name: customerId, kind: URL, type: integer, required: true, summary: the id }
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: one.json }
`,
  'services/customers/customer/one.json': '{"id":1,"name":"Ada"}\n',
  ...extra,
});

// A schema no draft's meta-schema takes: JSON Schema has no `type: file`.
const uncompilable = JSON.stringify({ type: 'object', properties: { upload: { type: 'file' } } });

const { serve, write, log } = useMockProgram();

/** The program started on `args`: what it said when it exited, or `served` (then stopped) when it started serving. */
const startOrExit = (args: string[]): Promise<string> =>
  startMockProgram(args).then(
    async (program) => {
      await program.stop();
      return 'served';
    },
    (err: Error) => err.message,
  );
const post = (url: string, body: string, type = 'application/json') =>
  fetch(url, { method: 'POST', headers: { 'content-type': type }, body });
const refusal = async (response: Response) => {
  expect(response.status).toBe(400);
  const body = (await response.json()) as { code: string; error: string; problems: unknown[] };
  expect(body.code).toBe('REQUEST_INVALID');
  return body.problems;
};

describe('restbus-mock --validate', () => {
  it('answers from the mock files without it, whatever the request: validation is opt-in', async () => {
    const api = await serve(files());
    expect((await fetch(`${api}/customers/abc`)).status).toBe(200);
    expect((await fetch(`${api}/customers`)).status).toBe(200);
    expect((await post(`${api}/customers`, '{"age":-1}')).status).toBe(201);
  });

  it('refuses a path parameter of the wrong type, naming it', async () => {
    const api = await serve(files(), '--validate');
    expect(await refusal(await fetch(`${api}/customers/abc`))).toEqual([
      { location: 'path.customerId', message: 'must be integer' },
    ]);
    expect(await (await fetch(`${api}/customers/42`)).json()).toEqual({ id: 1, name: 'Ada' });
  });

  it('lists every missing or mistyped query and header parameter at once', async () => {
    const api = await serve(files(), '--validate');
    expect(await refusal(await fetch(`${api}/customers?limit=ten`))).toEqual([
      { location: 'query.limit', message: 'must be integer' },
      { location: 'header.x-api-key', message: 'is required' },
    ]);
    const ok = await fetch(`${api}/customers?limit=10`, { headers: { 'x-api-key': 'k' } });
    expect(ok.status).toBe(200);
  });

  it('checks the body against the schema file the method names, and its BODY parameters', async () => {
    const api = await serve(files(), '--validate');
    expect(await refusal(await post(`${api}/customers`, '{"age":-1,"vip":"yes"}'))).toEqual([
      { location: 'body/name', message: 'is required' },
      { location: 'body/age', message: 'must be >= 0' },
      { location: 'body/vip', message: 'must be boolean' },
    ]);
    expect(await refusal(await fetch(`${api}/customers`, { method: 'POST' }))).toEqual([
      { location: 'body', message: 'is required' },
    ]);
    expect(await refusal(await post(`${api}/customers`, 'name=Ada', 'application/x-www-form-urlencoded'))).toEqual([
      { location: 'body', message: 'must be JSON' },
    ]);
    const created = await post(`${api}/customers`, '{"name":"Ada","age":36,"vip":true}');
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: 2 });
  });

  it("is turned on by the environment's validate, and checks stateful collections before they change", async () => {
    const api = await serve(files('    validate: true\n    stateful: true\n'));
    await refusal(await post(`${api}/customers`, '{"name":""}'));
    const added = await post(`${api}/customers`, '{"name":"Grace"}');
    expect(added.status).toBe(201);
    const all = (await (
      await fetch(`${api}/customers?limit=5`, { headers: { 'x-api-key': 'k' } })
    ).json()) as unknown[];
    expect(all).toHaveLength(2);
  });

  it('does not start when a request schema cannot be used, naming the file, the line and the flag that opts out', async () => {
    const dir = await write(files('', { 'services/customers/customer-schema.json': '{ "type": "object", ' }));
    const said = await startOrExit(['--project', dir, '--no-watch', '--validate']);
    expect(said).toContain('restbus-mock exited with 1');
    expect(said).toContain(
      `${join('services', 'customers', 'service.yml')}:17: /methods/POST/request/validationSchema: POST /customers: ` +
        `--validate cannot check it: ${join('services', 'customers', 'customer-schema.json')} is not valid JSON`,
    );
    expect(said).toContain('--validate-unchecked "POST /customers"');
    expect(said).not.toMatch(/\n\s+at /);
  });

  it("does not start either when the environment's validate is on and ajv cannot compile the schema, naming the keyword", async () => {
    const dir = await write(files('    validate: true\n', { 'services/customers/customer-schema.json': uncompilable }));
    const said = await startOrExit(['--project', dir, '--no-watch']);
    expect(said).toContain('restbus-mock exited with 1');
    expect(said).toContain(':17: /methods/POST/request/validationSchema: POST /customers: --validate cannot check it');
    expect(said).toContain('(keyword type)');
  });

  it('serves a route whose schema cannot be used with its bodies unchecked when --validate-unchecked names it, saying so', async () => {
    const api = await serve(
      files('', { 'services/customers/customer-schema.json': uncompilable }),
      '--validate',
      '--validate-unchecked',
      'post /customers',
    );
    expect(log().some((entry) => String(entry.msg).includes('POST /customers: served unchecked'))).toBe(true);
    expect((await post(`${api}/customers`, '{}')).status).toBe(201);
    // The other routes are still checked.
    expect(await refusal(await fetch(`${api}/customers/abc`))).toEqual([
      { location: 'path.customerId', message: 'must be integer' },
    ]);
  });

  it('fails --check --validate on a schema that cannot be used, unless --validate-unchecked names its route', async () => {
    const dir = await write(files('', { 'services/customers/customer-schema.json': uncompilable }));
    const checked = await runMockMain(['--check', '--validate', '--project', dir]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain(
      `${join('services', 'customers', 'service.yml')}:17: /methods/POST/request/validationSchema: POST /customers: ` +
        '--validate cannot check it',
    );
    expect(checked.stderr).toContain('(keyword type)');
    expect((await runMockMain(['--check', '--project', dir])).code).toBe(0);
    const optedOut = await runMockMain([
      '--check',
      '--validate',
      '--validate-unchecked',
      'POST /customers',
      '--project',
      dir,
    ]);
    expect(optedOut.code).toBe(0);
    expect(optedOut.stderr).toContain('POST /customers: served unchecked (--validate-unchecked)');
  });
});
