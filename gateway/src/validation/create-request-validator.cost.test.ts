import type { IncomingRequest } from '@restbus/infra';
import { LINEAR, LINEAR_SLICED, QUADRATIC, meterAtScales, watch } from '../__tests__/meter-work';
import { testEndpoint } from '../__tests__/start-test-gateway';
import type { ApiEndpoint } from '../openapi/endpoint';
import { compileRequestChecks } from './create-request-validator';

/**
 * The cost of --validate's checks, counted (issue 45): the gateway's check of a call (compileRequestChecks, which
 * runs @restbus/infra's compileInputCheck a slice at a time) does work linear in the body, the query and the headers
 * at 1x and 8x, counted in characters read, JSON parsed and members of the parsed body read; each test has a
 * quadratic version beside it that the same meter shows at 40x or more. The unique-items check itself is counted in
 * infra/runtime/src/validation/add-linear-unique-items.test.ts; the time of each path against a gateway is printed by
 * `npm run bench:cost` (gateway/src/bench/cost/main.ts).
 */

const json = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } });
const stored = { '204': { description: 'stored' } };

const endpoints = {
  unique: testEndpoint('post', '/unique', {
    requestBody: json({ type: 'array', uniqueItems: true, items: { type: 'object' } }),
    responses: stored,
  }),
  uniqueDeep: testEndpoint('post', '/unique-deep', {
    requestBody: json({ type: 'array', uniqueItems: true }),
    responses: stored,
  }),
  named: testEndpoint('post', '/named', {
    requestBody: json({ type: 'array', items: { type: 'object', required: ['name'] } }),
    responses: stored,
  }),
  deep: testEndpoint('post', '/deep', {
    requestBody: json({ type: 'object', properties: { a: { type: 'array' } } }),
    responses: stored,
  }),
  query: testEndpoint('get', '/query', {
    parameters: [
      { name: 'k', in: 'query', schema: { type: 'array', items: { type: 'string', maxLength: 8 } } },
      { name: 'limit', in: 'query', schema: { type: 'integer' } },
    ],
  }),
  headers: testEndpoint('get', '/headers', {
    parameters: [{ name: 'X-Key', in: 'header', required: true, schema: { type: 'string' } }],
  }),
};
const { checks } = compileRequestChecks(Object.values(endpoints));
const checkOf = (endpoint: ApiEndpoint) => checks.get(endpoint)!;

function request(parts: Partial<Pick<IncomingRequest, 'headers' | 'body'>> & { query?: object }): IncomingRequest {
  return {
    cookies: {},
    headers: parts.headers ?? { 'content-type': 'application/json' },
    parameters: { uri: {}, query: (parts.query ?? {}) as IncomingRequest['parameters']['query'] },
    body: parts.body ?? '',
  };
}
const post = (body: string) => request({ body });

/** 1,000 distinct objects at 1x (69 KB), 8,000 at 8x (549 KB). */
const uniqueObjects = (count: number): string =>
  JSON.stringify(
    Array.from({ length: count }, (_, i) => ({ id: i, name: `person ${i}`, tags: ['a', 'b'], address: { n: i } })),
  );

describe('--validate checks a call in work linear in its body, query and headers', () => {
  it('checks uniqueItems over objects in work linear in the array (comparing every pair is refused)', async () => {
    const check = checkOf(endpoints.unique);
    const real = await meterAtScales((scale) => post(uniqueObjects(1000 * scale)), check, { watchParsed: true });
    expect(real.ratio).toBeLessThanOrEqual(LINEAR);
    expect(real.ratio).toBeGreaterThan(4);
    expect(await check(post(uniqueObjects(8000)))).toBeUndefined();
    expect(await check(post(JSON.stringify([{ a: 1, b: [1, 2] }, { c: 1 }, { b: [1, 2], a: 1 }])))).toEqual({
      message: 'the request does not match the API description',
      problems: [{ location: 'body', message: 'must NOT have duplicate items (items ## 0 and 2 are identical)' }],
    });
    // The negative control: every pair of items compared, as ajv's own uniqueItems does for objects (on 100 and
    // 800 items: the pairs of 8,000 would take a while to count).
    const pairwise = (body: IncomingRequest) => {
      const items = JSON.parse(body.body) as unknown[];
      let same = 0;
      for (let i = 0; i < items.length; i += 1) {
        const text = JSON.stringify(items[i]);
        for (let j = 0; j < i; j += 1) if (JSON.stringify(items[j]) === text) same += 1;
      }
      return same;
    };
    const control = await meterAtScales((scale) => post(uniqueObjects(100 * scale)), pairwise);
    expect(control.ratio).toBeGreaterThanOrEqual(QUADRATIC);
  });

  it('checks uniqueItems over items nested 60 deep in work linear in the body', async () => {
    const nested = (leaf: number): string => `${'['.repeat(60)}${leaf}${']'.repeat(60)}`;
    const body = (scale: number): string => `[${Array.from({ length: 134 * scale }, (_, i) => nested(i)).join(',')}]`;
    const check = checkOf(endpoints.uniqueDeep);
    expect(await check(post(body(8)))).toBeUndefined();
    const real = await meterAtScales((scale) => post(body(scale)), check, { watchParsed: true });
    expect(real.ratio).toBeLessThanOrEqual(LINEAR_SLICED);
    expect(real.ratio).toBeGreaterThan(4);
  });

  it('lists the first problem only of a body over 64 KiB, in work linear in the body (listing them all one by one is refused)', async () => {
    const body = (scale: number): string =>
      `[${Array.from({ length: (128 * 1024 * scale) / 7 }, () => '{"a":1}').join(',')}]`;
    const check = checkOf(endpoints.named);
    expect(await check(post(body(8)))).toEqual({
      message:
        'the request does not match the API description (the body is over 64 KiB: the first of its problems is listed)',
      problems: [{ location: 'body/0', message: "must have required property 'name'" }],
    });
    const real = await meterAtScales((scale) => post(body(scale)), check, { watchParsed: true });
    expect(real.ratio).toBeLessThanOrEqual(LINEAR_SLICED);
    expect(real.ratio).toBeGreaterThan(4);
    // The negative control: every problem listed, each added to a copy of the list so far.
    const listedOneByOne = (call: IncomingRequest) =>
      (JSON.parse(call.body) as Array<Record<string, unknown>>).reduce<string[]>(
        (problems, item, i) => ('name' in item ? problems : problems.concat([`body/${i}`])),
        [],
      ).length;
    // (On 300 and 2,400 items: copies of lists of 150,000 would never end.)
    const fewer = (scale: number) => post(`[${Array.from({ length: 300 * scale }, () => '{"a":1}').join(',')}]`);
    const control = await meterAtScales(fewer, listedOneByOne, { watchParsed: true });
    expect(control.ratio).toBeGreaterThanOrEqual(QUADRATIC);
  });

  it('refuses a body nested deeper than 64 levels after reading its first 65 brackets, at any size', async () => {
    const deep = (scale: number): string => `{"a":${'['.repeat(20_000 * scale)}${']'.repeat(20_000 * scale)}}`;
    const check = checkOf(endpoints.deep);
    expect(await check(post(deep(1)))).toMatchObject({
      problems: [{ location: 'body', message: 'nests deeper than 64 levels' }],
    });
    const real = await meterAtScales((scale) => post(deep(scale)), check, { watchParsed: true });
    expect(real.large).toBe(real.small);
    expect(real.large).toBeLessThan(1000);
    // The negative control: a depth check that reads the whole text before it answers (as a parse would) grows
    // with the body, 8x, where the real one reads the same 65 brackets at any size.
    const readsAll = ({ body }: IncomingRequest) => {
      let depth = 0;
      let deepest = 0;
      for (let i = 0; i < body.length; i += 1) {
        const c = body.charCodeAt(i);
        if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, (depth += 1));
        else if (c === 0x5d || c === 0x7d) depth -= 1;
      }
      return deepest > 64;
    };
    const control = await meterAtScales((scale) => post(deep(scale)), readsAll);
    expect(control.ratio).toBeGreaterThan(4);
  });

  it('checks a query list of many values in work linear in the list', async () => {
    const values = (scale: number) => ({ k: Array.from({ length: 110 * scale }, (_, i) => `v${i % 97}`) });
    const check = checkOf(endpoints.query);
    expect(await check(request({ query: values(8) }))).toBeUndefined();
    expect(await check(request({ query: { k: ['123456789'] } }))).toMatchObject({
      problems: [{ location: 'query.k', message: 'must NOT have more than 8 characters' }],
    });
    const real = await meterAtScales((scale) => request({ query: watch(values(scale)) }), check);
    expect(real.ratio).toBeLessThanOrEqual(LINEAR);
    expect(real.ratio).toBeGreaterThan(4);
    // The negative control: the whole list written out again for each value.
    const quadratic = ({ parameters }: IncomingRequest) => {
      const list = (parameters.query as { k: string[] }).k;
      return list.map(() => list.join(',').length).length;
    };
    const control = await meterAtScales((scale) => request({ query: values(scale) }), quadratic);
    expect(control.ratio).toBeGreaterThanOrEqual(QUADRATIC);
  });

  it('checks the declared header of a call with hundreds of others in the same work as with none (reading each is refused)', async () => {
    const headers = (scale: number): Record<string, string> =>
      watch(
        Object.fromEntries([['x-key', 'k'], ...Array.from({ length: 100 * scale }, (_, i) => [`x-h${i}`, `v${i}`])]),
      );
    const check = checkOf(endpoints.headers);
    expect(await check(request({ headers: headers(8) }))).toBeUndefined();
    expect(await check(request({ headers: { 'x-other': 'k' } }))).toMatchObject({
      problems: [{ location: 'header.x-key', message: 'is required' }],
    });
    const real = await meterAtScales((scale) => request({ headers: headers(scale) }), check);
    expect(real.large).toBe(real.small);
    // The negative control: every header looked up among all the names, as a check that walked them would.
    const quadratic = ({ headers: sent }: IncomingRequest) =>
      Object.keys(sent).filter((name) => Object.keys(sent).includes(name)).length;
    const control = await meterAtScales((scale) => request({ headers: headers(scale) }), quadratic);
    expect(control.ratio).toBeGreaterThanOrEqual(QUADRATIC);
  });
});
