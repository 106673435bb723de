import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResponseMessage } from '@restbus/infra';
import { loadApis } from '../openapi/load-api';
import type { ApiEndpoint } from '../openapi/endpoint';
import { createReplyChecks, type ReplyChecker } from './create-reply-checks';
import { GOOD_PERSON, PERSONS_API, THINGS_API } from './fault-apis';

let dir: string;
let endpoints: ApiEndpoint[];
let checkers: Map<ApiEndpoint, ReplyChecker>;
const noLint = { lint: async () => [] };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-reply-checks-'));
  await writeFile(join(dir, 'persons.json'), JSON.stringify(PERSONS_API));
  await writeFile(join(dir, 'things.json'), JSON.stringify(THINGS_API));
  endpoints = await loadApis([join(dir, 'persons.json'), join(dir, 'things.json')], { linter: noLint });
  checkers = createReplyChecks(endpoints).checkers;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function checkerOf(method: string, path: string): ReplyChecker {
  const endpoint = endpoints.find((e) => e.desc.method === method && e.desc.uri === path);
  const checker = endpoint && checkers.get(endpoint);
  if (!checker) throw new Error(`no checker for ${method} ${path}`);
  return checker;
}

const list = (...items: unknown[]): ResponseMessage => ({
  status: 200,
  headers: { 'X-Rate-Limit': '10', 'content-type': 'application/json' },
  body: { items },
});
const withPerson = (change: Record<string, unknown>, drop: string[] = []): ResponseMessage => {
  const person: Record<string, unknown> = { ...GOOD_PERSON, ...change };
  for (const key of drop) delete person[key];
  return list(person);
};
const bytes = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe('the reply check of an operation', () => {
  it('finds nothing wrong with a reply that matches its operation, as a value or as bytes', async () => {
    const persons = checkerOf('get', '/persons');
    expect(await persons.check(list(GOOD_PERSON, GOOD_PERSON))).toEqual([]);
    expect(await persons.check({ ...list(), body: bytes({ items: [GOOD_PERSON] }) })).toEqual([]);
    expect(await checkerOf('delete', '/persons/{id}').check({ status: 204 })).toEqual([]);
  });

  it.each([
    ['a wrong type', withPerson({ name: 42 }), '/items/0/name', 'type', 'string', '42'],
    ['a missing required property', withPerson({}, ['name']), '/items/0/name', 'required', 'present', 'absent'],
    [
      'a property additionalProperties: false forbids',
      withPerson({ extra: 1 }),
      '/items/0/extra',
      'additionalProperties',
      'absent (additionalProperties: false)',
      '1',
    ],
    ['an enum miss', withPerson({ status: 'gone' }), '/items/0/status', 'enum', 'one of "active", "retired"', '"gone"'],
    [
      'a format miss',
      withPerson({ email: 'not-an-address' }),
      '/items/0/email',
      'format',
      'format email',
      '"not-an-address"',
    ],
    ['null where the schema is not nullable', withPerson({ name: null }), '/items/0/name', 'type', 'string', 'null'],
    ['a oneOf matching none', withPerson({ pet: 5 }), '/items/0/pet', 'oneOf', 'exactly one of 2 schemas', '5'],
  ])('finds %s in the body, at its JSON pointer', async (_what, reply, pointer, code, expected, actual) => {
    const violations = await checkerOf('get', '/persons').check(reply);
    expect(violations).toEqual([
      expect.objectContaining({ kind: 'body', severity: 'error', pointer, code, expected, actual }),
    ]);
  });

  it('gives the same bytes the same verdict, and checks other bytes anew', async () => {
    const persons = checkerOf('get', '/persons');
    const good = { ...list(), body: bytes({ items: [GOOD_PERSON] }) };
    const other = { ...list(), body: bytes({ items: [{ ...GOOD_PERSON, name: 'Xy' }] }) };
    const sameLength = { ...list(), body: bytes({ items: [{ ...GOOD_PERSON, status: 'retire' }] }) };
    expect(await persons.check(good)).toEqual([]);
    expect(await persons.check({ ...good, body: good.body.slice() })).toEqual([]);
    expect(await persons.check(other)).toEqual([]);
    expect(sameLength.body.length).toBe(good.body.length);
    expect(await persons.check(sameLength)).toEqual([expect.objectContaining({ pointer: '/items/0/status' })]);
    expect(await persons.check(good)).toEqual([]);
  });

  it('parses each of a few pages that alternate once, and judges a changed one anew', async () => {
    const persons = checkerOf('get', '/persons');
    const pages = ['Ann', 'Bob', 'Cy'].map((name) => ({
      ...list(),
      body: bytes({ items: Array.from({ length: 50 }, () => ({ ...GOOD_PERSON, name })) }),
    }));
    const parse = jest.spyOn(JSON, 'parse');
    try {
      for (let round = 0; round < 3; round += 1) {
        for (const page of pages) expect(await persons.check({ ...page, body: page.body.slice() })).toEqual([]);
      }
      expect(parse).toHaveBeenCalledTimes(pages.length);
      // The same length, one quote more: no longer JSON.
      const changed = pages[1].body.slice();
      changed[new TextDecoder().decode(changed).lastIndexOf('Bob') + 1] = 0x22;
      expect(await persons.check({ ...pages[1], body: changed })).not.toEqual([]);
    } finally {
      parse.mockRestore();
    }
  });

  it('finds a bad item deep in an array', async () => {
    const items = [GOOD_PERSON, GOOD_PERSON, GOOD_PERSON, { ...GOOD_PERSON, tags: ['a', 'b', 7] }];
    expect(await checkerOf('get', '/persons').check(list(...items))).toEqual([
      expect.objectContaining({ kind: 'body', pointer: '/items/3/tags/2', expected: 'string', actual: '7' }),
    ]);
  });

  it('accepts null where OpenAPI 3.0 says nullable', async () => {
    expect(await checkerOf('get', '/persons').check(withPerson({ nickname: null }))).toEqual([]);
  });

  it('reads an OpenAPI 3.1 type array', async () => {
    const things = checkerOf('get', '/listThings'.replace('listThings', 'things'));
    expect(await things.check({ body: { code: null } })).toEqual([]);
    expect(await things.check({ body: { code: 7 } })).toEqual([]);
    expect(await things.check({ body: { code: 'seven' } })).toEqual([
      expect.objectContaining({ kind: 'body', pointer: '/code', expected: 'integer or null', actual: '"seven"' }),
    ]);
  });

  it('finds an undeclared 2xx status, an error, and covers others by a range or default', async () => {
    expect(await checkerOf('get', '/persons').check({ ...list(GOOD_PERSON), status: 201 })).toEqual([
      expect.objectContaining({
        kind: 'status',
        pointer: 'status',
        severity: 'error',
        expected: '200, 4XX',
        actual: '201',
      }),
    ]);
    expect(await checkerOf('get', '/persons').check({ status: 404, body: { error: 'no' } })).toEqual([]);
    expect(await checkerOf('get', '/persons/{id}').check({ status: 503, body: { error: 'later' } })).toEqual([]);
  });

  it('finds an undeclared error status as a warning: the service said it failed', async () => {
    expect(await checkerOf('get', '/persons').check({ status: 503, body: { error: 'later' } })).toEqual([
      expect.objectContaining({ kind: 'status', severity: 'warning', actual: '503' }),
    ]);
  });

  it('finds a body of a content type the response does not declare', async () => {
    const reply = { ...list(GOOD_PERSON), headers: { 'X-Rate-Limit': '1', 'Content-Type': 'text/html' }, body: '<p>' };
    expect(await checkerOf('get', '/persons').check(reply)).toEqual([
      expect.objectContaining({
        kind: 'content-type',
        pointer: 'content-type',
        expected: 'application/json',
        actual: 'text/html',
      }),
    ]);
    // A string without a type is sent as text/plain.
    expect(
      await checkerOf('get', '/persons').check({ ...list(), headers: { 'X-Rate-Limit': '1' }, body: 'hi' }),
    ).toEqual([expect.objectContaining({ kind: 'content-type', actual: 'text/plain' })]);
  });

  it('finds a missing required header and a header value off its schema', async () => {
    expect(await checkerOf('get', '/persons').check({ body: { items: [] } })).toEqual([
      expect.objectContaining({
        kind: 'header',
        pointer: 'header/x-rate-limit',
        expected: 'present',
        actual: 'absent',
      }),
    ]);
    const reply = { headers: { 'x-rate-limit': '-1', 'X-Page': 'two' }, body: { items: [] } };
    expect(await checkerOf('get', '/persons').check(reply)).toEqual([
      expect.objectContaining({ kind: 'header', pointer: 'header/x-rate-limit', expected: '>= 0', actual: '-1' }),
      expect.objectContaining({ kind: 'header', pointer: 'header/x-page', expected: 'integer', actual: '"two"' }),
    ]);
  });

  it('finds a body that is not JSON though its type says so', async () => {
    const reply = { ...list(), body: new TextEncoder().encode('{"items": [') };
    expect(await checkerOf('get', '/persons').check(reply)).toEqual([
      expect.objectContaining({ kind: 'body', pointer: '', expected: 'JSON' }),
    ]);
  });

  it('resolves the $refs of a cycle through the document', async () => {
    const cyclic = {
      openapi: '3.0.3',
      info: { title: 'tree', version: '1' },
      paths: {
        '/tree': {
          get: {
            responses: {
              '200': {
                description: 'a tree',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Node: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
            },
          },
        },
      },
    };
    await writeFile(join(dir, 'tree.json'), JSON.stringify(cyclic));
    const tree = await loadApis([join(dir, 'tree.json')], { linter: noLint });
    const { checkers: own, skipped } = createReplyChecks(tree);
    expect(skipped).toEqual([]);
    const check = own.get(tree[0])!;
    expect(await check.check({ body: { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] } })).toEqual(
      [],
    );
    expect(await check.check({ body: { name: 'a', children: [{ name: 'b', children: [{ name: 3 }] }] } })).toEqual([
      expect.objectContaining({ pointer: '/children/0/children/0/name', expected: 'string' }),
    ]);
  });
});

describe('the reply check of hostile replies', () => {
  const json = { 'X-Rate-Limit': '1', 'content-type': 'application/json' };
  const text = (body: string): ResponseMessage => ({
    status: 200,
    headers: json,
    body: new TextEncoder().encode(body),
  });
  const things = (body: unknown): ResponseMessage => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body,
  });
  const pets = (count: number) => ({ items: Array.from({ length: count }, () => ({ ...GOOD_PERSON, pet: 5 })) });

  it('refuses a body that is not UTF-8 under a JSON type, rather than passing it unchecked', async () => {
    const reply = { ...text(''), body: Uint8Array.from([0x7b, 0x22, 0xff, 0x22, 0x7d]) };
    expect(await checkerOf('get', '/persons').check(reply)).toEqual([
      expect.objectContaining({ kind: 'body', severity: 'error', pointer: '', expected: 'UTF-8 text' }),
    ]);
  });

  it('refuses a body nested deeper than 64 levels without parsing it', async () => {
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const deep = `{"items":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
      expect(await checkerOf('get', '/persons').check(text(deep))).toEqual([
        expect.objectContaining({ kind: 'body', pointer: '', message: 'nests deeper than 64 levels' }),
      ]);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('refuses a repeated name: JSON.parse keeps the last, a client may read the first', async () => {
    const body = `{"items":[${JSON.stringify({ ...GOOD_PERSON, name: 42 })}],"items":[]}`;
    expect(await checkerOf('get', '/persons').check(text(body))).toEqual([
      expect.objectContaining({
        kind: 'body',
        severity: 'error',
        pointer: '/items',
        expected: 'each name once in an object',
      }),
    ]);
  });

  it.each([
    ['{"size":1e999}', '/size', 'a finite number'],
    ['{"code":9007199254740993}', '/code', 'an integer JSON readers read exactly'],
    ['{"code":1.0000000000000001}', '/code', 'an integer JSON readers read exactly'],
  ])('refuses the number in %s: the check would read another one', async (body, pointer, expected) => {
    const check = checkerOf('get', '/things');
    expect(await check.check(things(new TextEncoder().encode(body)))).toEqual([
      expect.objectContaining({ kind: 'body', severity: 'error', pointer, expected }),
    ]);
    expect(await check.check(things(body))).toEqual([expect.objectContaining({ pointer, expected })]);
  });

  it('refuses Infinity in a body that came parsed: the client would read null', async () => {
    expect(await checkerOf('get', '/things').check(things({ label: 'x', size: Infinity }))).toEqual([
      expect.objectContaining({ kind: 'body', pointer: '/size', expected: 'a finite number' }),
    ]);
  });

  it('passes -0 and the integers a double holds exactly', async () => {
    const body = new TextEncoder().encode('{"code":-0,"size":100000000000000000}');
    expect(await checkerOf('get', '/things').check(things(body))).toEqual([]);
  });

  it('lists at most 100 problems of a small body with 600', async () => {
    const body = JSON.stringify({ items: Array.from({ length: 300 }, () => ({})) });
    expect(body.length).toBeLessThan(2048);
    expect(await checkerOf('get', '/persons').check(text(body))).toHaveLength(100);
  });

  it('lists the first problem only of a body past the work bound, as bytes or as a parsed value', async () => {
    const persons = checkerOf('get', '/persons');
    // 6,000 oneOf misses in less than 64 KiB: 18,000 errors for the all-errors pass, which does not run.
    const small = JSON.stringify({ items: Array.from({ length: 6_000 }, () => ({ pet: 5 })) });
    expect(small.length).toBeLessThan(64 * 1024);
    expect(await persons.check(text(small))).toHaveLength(1);
    expect(await persons.check({ ...list(), body: pets(20_000) })).toEqual([
      expect.objectContaining({ kind: 'body', pointer: '/items/0/pet', code: 'oneOf' }),
    ]);
  });
});
