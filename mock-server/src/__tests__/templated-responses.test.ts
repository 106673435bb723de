import { join } from 'node:path';
import { runMockMain } from './run-mock-main';
import { shopConfig, type Files } from './sample-project';
import { useMockProgram } from './start-mock-program';

const CONFIG = shopConfig(['/customers', '/customers/customer']);

/** A collection and a resource whose answers are templates; `extra` adds or replaces files. */
const files = (extra: Files = {}): Files => ({
  'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n',
  'config.yml': CONFIG,
  'services/customers/service.yml': `name: Customers
description: The customers
style: COLLECTION
uriTemplate: /customers
methods:
  GET:
    summary: List
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: list.json.hbs }
  POST:
    summary: Add
    responses:
      - { name: OK, statusCode: 201, reason: created, mockBody: created.json.hbs }
      - { name: PAGE, statusCode: 200, reason: html, mockBody: page.html.hbs }
`,
  'services/customers/list.json.hbs': `[
{{#each (lookup request.query "ids")}}  { "id": {{json this}}, "name": "{{faker "person.firstName"}}", "score": {{randomInt 1 1000}} }{{#unless @last}},{{/unless}}
{{/each}}]
`,
  'services/customers/created.json.hbs': `{
  "id": "{{uuid}}",
  "name": "{{request.body.name}}",
  "tags": {{json request.body.tags}},
  "agent": "{{request.headers.user-agent}}",
  "session": "{{request.cookies.sid}}",
  "limit": {{default request.query.limit 10}},
  "at": "{{now}}"
}
`,
  'services/customers/page.html.hbs': '<p>Hello {{request.body.name}}</p>\n',
  'services/customers/customer/service.yml': `name: Customer
description: One customer
style: RESOURCE
uriTemplate: /customers/{customerId}
methods:
  GET:
    summary: Read
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: one.json.hbs }
      - { name: BROKEN, statusCode: 200, reason: a helper that fails, mockBody: broken-at-run.json.hbs }
`,
  'services/customers/customer/one.json.hbs':
    '{ "id": "{{request.params.customerId}}", "plain": {{{default request.query.raw "null"}}} }\n',
  'services/customers/customer/broken-at-run.json.hbs': '{ "n": {{randomInt 10 1}} }\n',
  ...extra,
});

const { serve, write, log } = useMockProgram();

describe('templated mock responses (.hbs mock files)', () => {
  it('renders body fields, headers, cookies and query into JSON that stays valid whatever the client sent', async () => {
    const api = await serve(files());
    const name = 'Ann "the \\ quoted"\n<b>';
    const response = await fetch(`${api}/customers?limit=5`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'tester "1"', cookie: 'sid=abc' },
      body: JSON.stringify({ name, tags: ['a', 'b'] }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ name, tags: ['a', 'b'], agent: 'tester "1"', session: 'abc', limit: 5 });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    // {{now}}: an ISO 8601 instant, the time of the answer by the server's own clock (its Date header, in seconds).
    expect(new Date(String(body.at)).toISOString()).toBe(body.at);
    const answered = Date.parse(response.headers.get('date')!);
    expect(Math.abs(Date.parse(String(body.at)) - answered)).toBeLessThan(60_000);
  });

  it('uses a default for what the request does not carry, and escapes values as HTML in an HTML template', async () => {
    const api = await serve(files());
    const created = await fetch(`${api}/customers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await created.json()).toMatchObject({ name: '', tags: null, limit: 10 });
    const page = await fetch(`${api}/customers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mock-response': 'PAGE' },
      body: JSON.stringify({ name: '<script>alert(1)</script>' }),
    });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toBe('<p>Hello &lt;script&gt;alert(1)&lt;/script&gt;</p>\n');
  });

  it('gives the same request the same random data, and another seed other data', async () => {
    const api = await serve(files());
    const list = async (seed?: string) =>
      (await fetch(`${api}/customers?ids=1&ids=2&ids=3`, { headers: seed ? { 'x-mock-seed': seed } : {} })).json();
    const first = (await list()) as Array<{ id: string; name: string; score: number }>;
    expect(first.map((item) => item.id)).toEqual(['1', '2', '3']);
    expect(first.every((item) => item.name.length > 0 && item.score >= 1 && item.score <= 1000)).toBe(true);
    expect(await list()).toEqual(first);
    expect(await list('another')).not.toEqual(first);
  });

  it('renders path parameters, and a triple-stash value as one JSON value too: the text a client sends never becomes JSON', async () => {
    const api = await serve(files());
    const plainOf = async (query: string) =>
      (await (await fetch(`${api}/customers/c-42${query}`)).json()) as Record<string, unknown>;
    expect(await plainOf('?raw=%5B1%2C2%5D')).toEqual({ id: 'c-42', plain: '[1,2]' });
    expect(await plainOf(`?raw=${encodeURIComponent('1, "admin": true')}`)).toEqual({
      id: 'c-42',
      plain: '1, "admin": true',
    });
    expect(await plainOf('?raw=7')).toEqual({ id: 'c-42', plain: 7 });
    expect(await plainOf('')).toEqual({ id: 'c-42', plain: null });
  });

  it('places a value outside quotes as one JSON value: a number stays one, other text is a string, a list a list', async () => {
    const api = await serve(files());
    const created = async (query: string) =>
      (await (
        await fetch(`${api}/customers${query}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: { nested: '"' }, tags: '</script>\u2028' }),
        })
      ).json()) as Record<string, unknown>;
    const injected = await created(`?limit=${encodeURIComponent('5, "admin": true')}`);
    expect(injected).toMatchObject({ limit: '5, "admin": true', name: '{"nested":"\\""}', tags: '</script>\u2028' });
    expect(Object.keys(injected).sort()).toEqual(['agent', 'at', 'id', 'limit', 'name', 'session', 'tags']);
    expect((await created('?limit=1&limit=2')).limit).toEqual(['1', '2']);
    expect((await created('?limit=-2.5e3')).limit).toBe(-2500);
  });

  it('escapes <, >, & and the line separators in JSON output, so that a page may embed it', async () => {
    const api = await serve(files());
    const response = await fetch(`${api}/customers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: '</script>&\u2028', tags: ['<!--'] }),
    });
    const text = await response.text();
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toMatchObject({ name: '</script>&\u2028', tags: ['<!--'] });
  });

  it('answers from the OK response with X-Mock-Warning when a helper fails at request time, never with a stack', async () => {
    const api = await serve(files());
    const response = await fetch(`${api}/customers/7`, { headers: { 'x-mock-response': 'BROKEN' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-mock-warning')).toContain('broken-at-run.json.hbs: the template failed: randomInt');
    expect(await response.json()).toMatchObject({ id: '7' });
  });

  it('answers 500 JSON without details of the server when --strict and a helper fails', async () => {
    const api = await serve(files(), '--strict');
    const response = await fetch(`${api}/customers/7`, { headers: { 'x-mock-response': 'BROKEN' } });
    expect(response.status).toBe(500);
    const body = (await response.json()) as { code: string; error: string };
    expect(body.code).toBe('MOCK_UNAVAILABLE');
    expect(body.error).not.toMatch(/ at |\/tmp\//);
  });

  it('seeds a stateful collection with what its template renders', async () => {
    const api = await serve(
      files({
        'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n    stateful: true\n',
        'services/customers/list.json.hbs': '[{ "id": 1, "name": "{{faker "person.lastName"}}" }]\n',
      }),
    );
    const items = (await (await fetch(`${api}/customers`)).json()) as Array<{ id: number; name: string }>;
    expect(items).toHaveLength(1);
    expect(items[0].name).toMatch(/^[A-Z]/);
  });

  it('sends a .json mock file holding braces as it is: only .hbs files are templates', async () => {
    const api = await serve(
      files({
        'services/customers/service.yml': `name: Customers
description: The customers
style: COLLECTION
uriTemplate: /customers
methods:
  GET:
    summary: List
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: list.json }
`,
        'services/customers/list.json': '["{{request.path}}"]\n',
      }),
    );
    expect(await (await fetch(`${api}/customers`)).text()).toBe('["{{request.path}}"]\n');
  });
});

describe('a template that does not compile', () => {
  const broken = (): Files =>
    files({
      'services/customers/list.json.hbs': '[\n  {{#each request.query.ids}}\n  {"id": {{this}} }\n]\n',
      'services/customers/customer/one.json.hbs': '{\n  "id": "{{shout request.params.customerId}}"\n}\n',
    });

  it('fails restbus-mock --check with file:line for each, and no stack trace', async () => {
    const dir = await write(broken());
    const result = await runMockMain(['--check', '--project', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join('services', 'customers', 'list.json.hbs')}:5: template syntax:`);
    expect(result.stderr).toContain(
      `${join('services', 'customers', 'customer', 'one.json.hbs')}:2: template: no helper shout (there are now, uuid,`,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('is reported once at load with its line, and its route answers from the fallback', async () => {
    const api = await serve(broken());
    const warnings = log().filter((entry) => String(entry.msg).includes('list.json.hbs:5: template syntax'));
    expect(warnings).toHaveLength(1);
    const response = await fetch(`${api}/customers`);
    expect(response.headers.get('x-mock-warning')).toContain('list.json.hbs:5');
  });
});
