import { join } from 'node:path';
import { runMockMain } from './run-mock-main';
import { shopConfig, type Files } from './sample-project';
import { useMockProgram } from './start-mock-program';

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

const { serve, write, log } = useMockProgram();
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

  it('serves with a warning when a request schema cannot be used, and --check --validate fails naming file and line', async () => {
    const broken = files('', { 'services/customers/customer-schema.json': '{ "type": "object", ' });
    const dir = await write(broken);
    const checked = await runMockMain(['--check', '--validate', '--project', dir]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain(
      `${join('services', 'customers', 'service.yml')}:17: /methods/POST/request/validationSchema: ` +
        `${join('services', 'customers', 'customer-schema.json')} is not valid JSON`,
    );
    expect((await runMockMain(['--check', '--project', dir])).code).toBe(0);

    const api = await serve(broken, '--validate');
    expect(log().some((entry) => String(entry.msg).includes('POST /customers bodies are not checked'))).toBe(true);
    expect((await post(`${api}/customers`, '{}')).status).toBe(201);
  });
});
