import { rm } from 'node:fs/promises';
import Ajv from 'ajv';
import type { Request } from 'express';
import { JSON_SLICE_LENGTH } from '@restbus/infra';
import { loadProject } from '@restbus/project-format';
import type { MockServer } from '../server/start-mock-server';
import { compileMockTemplate } from '../services/templates/compile-mock-template';
import { stringifyInChunks } from '../services/stateful/stringify-in-chunks';
import { compileRequestChecks, type RequestCheck } from '../services/validation/compile-request-checks';
import { serveProject, shopConfig, writeProject, type Files } from './sample-project';
import { startMockProgram } from './start-mock-program';

// Each request path's work at 1x and 8x its input, counted rather than timed: reads of the request's body (a Proxy
// counts every member read and every listing of names), characters handed to JSON.parse. Linear work counts about 8x
// as much at 8x; each counter is also run over a deliberately quadratic version of the same work, which counts some
// 64x, so that a counter that could not tell them apart fails here. The times, stalls and RSS of these paths over
// HTTP are figures of `npm run bench:cost` (src/bench/cost/main.ts).

/** The most 8x the input may count over 8x what 1x counted: linear work, with some constant work of its own. */
const LINEAR = 9;
/** The least a quadratic version counts at 8x over 1x (64 in theory): the counters must see it. */
const QUADRATIC = 32;

const resource = (name: string, uriTemplate: string, methods: string): string =>
  `name: ${name}\ndescription: ${name}\nstyle: RESOURCE\nuriTemplate: ${uriTemplate}\nmethods:\n${methods}`;

const listItems = (count: number): Array<{ id: number; name: string; tags: string[] }> =>
  Array.from({ length: count }, (_, i) => ({ id: i + 1, name: `customer ${i}`, tags: ['a', 'b'] }));

const ECHO_TEMPLATE =
  '{ "text": "{{request.body.text}}", "all": {{json request.body}}, ' +
  '"skus": [{{#each request.body.lines}}"{{sku}}"{{#unless @last}},{{/unless}}{{/each}}] }\n';

const files = (): Files => ({
  'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n    validate: true\n',
  'config.yml': shopConfig(['/orders', '/inbox', '/echo', '/notes', '/notes/note', '/list8']),
  // --validate: a body schema whose array of objects must hold no duplicates.
  'services/orders/service.yml': resource(
    'Orders',
    '/orders',
    `  POST:
    summary: Add
    request: { validationSchema: order-schema.json }
    responses: [{ name: OK, statusCode: 201, reason: created, mockBody: created.json }]
`,
  ),
  'services/orders/order-schema.json': JSON.stringify({
    type: 'object',
    required: ['lines'],
    properties: {
      lines: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'object', required: ['sku'], properties: { sku: { type: 'string' }, n: { type: 'integer' } } },
      },
      // Backtracks 2^n steps on n a's and a stranger.
      code: { type: 'string', pattern: '^(a+)+$' },
    },
  }),
  'services/orders/created.json': '{"ok":true}\n',
  // A POST answered from a file: its body is parsed (for `_method`) and nothing else.
  'services/inbox/service.yml': resource(
    'Inbox',
    '/inbox',
    '  POST: { summary: Drop, responses: [{ name: OK, statusCode: 202, reason: taken, mockBody: taken.json }] }\n',
  ),
  'services/inbox/taken.json': '{"taken":true}\n',
  // A template that shows the body whole, a long string of it, and each of its items.
  'services/echo/service.yml': resource(
    'Echo',
    '/echo',
    `  POST:
    summary: Echo
    responses: [{ name: OK, statusCode: 200, reason: fine, mockBody: echo.json.hbs }]
`,
  ),
  'services/echo/echo.json.hbs': ECHO_TEMPLATE,
  // Stateful: one collection written to, one read whole.
  'services/notes/service.yml': `name: Notes\ndescription: Notes\nstyle: COLLECTION\nuriTemplate: /notes\nstateful: true
methods:
  GET: { summary: List, responses: [{ name: OK, statusCode: 200, reason: fine, mockBody: seed.json }] }
  POST: { summary: Add, responses: [{ name: OK, statusCode: 201, reason: created }] }
`,
  'services/notes/seed.json': '[{"id":1,"text":"seed"}]\n',
  'services/notes/note/service.yml': resource(
    'Note',
    '/notes/{noteId}',
    `  GET: { summary: Read, responses: [{ name: OK, statusCode: 200, reason: fine }] }
  PUT: { summary: Replace, responses: [{ name: OK, statusCode: 200, reason: fine }] }
`,
  ),
  'services/list8/service.yml': `name: List8\ndescription: List\nstyle: COLLECTION\nuriTemplate: /list8\nstateful: true
methods:
  GET: { summary: List, responses: [{ name: OK, statusCode: 200, reason: fine, mockBody: seed.json }] }
`,
  'services/list8/seed.json': JSON.stringify(listItems(8000)),
});

/** Distinct order lines, `count` of them: each one is compared with the others by uniqueItems. */
const orderLines = (count: number): Array<{ sku: string; n: number }> =>
  Array.from({ length: count }, (_, i) => ({ sku: `s${String(i).padStart(6, '0')}`, n: i }));

/**
 * `value` behind Proxies that count the work done on it: every member read (`get`) and every name a listing of an
 * object's names returns (`ownKeys`), at any depth. The same object always gets the same Proxy.
 */
function countReads<T>(value: T): { view: T; reads: () => number } {
  let reads = 0;
  const proxies = new WeakMap<object, object>();
  const wrap = (target: unknown): unknown => {
    if (target === null || typeof target !== 'object') return target;
    let proxy = proxies.get(target);
    if (!proxy) {
      proxy = new Proxy(target, {
        get(object, key, receiver) {
          reads += 1;
          return wrap(Reflect.get(object, key, receiver));
        },
        ownKeys(object) {
          const keys = Reflect.ownKeys(object);
          reads += keys.length;
          return keys;
        },
      });
      proxies.set(target, proxy);
    }
    return proxy;
  };
  return { view: wrap(value) as T, reads: () => reads };
}

/** What `count` counts for the input of `base` units and for 8x as many, and the ratio of the two. */
async function countAtScales(
  count: (units: number) => Promise<number> | number,
  base: number,
): Promise<{ small: number; large: number; ratio: number }> {
  const small = await count(base);
  const large = await count(8 * base);
  return { small, large, ratio: large / small };
}

/** The reads `work` makes of the input `make(units)`, as a counted view. */
const readsOf =
  <T>(make: (units: number) => T, work: (view: T) => unknown) =>
  async (units: number): Promise<number> => {
    const counted = countReads(make(units));
    await work(counted.view);
    return counted.reads();
  };

/**
 * The characters JSON.parse reads while `work` runs (the parse of a request body: its work is in proportion to
 * them), and the most one call read: what one turn of the event loop is held for.
 */
async function jsonParseReads(work: () => Promise<unknown>): Promise<{ characters: number; longest: number }> {
  const parse = JSON.parse.bind(JSON);
  let characters = 0;
  let longest = 0;
  const spy = jest.spyOn(JSON, 'parse').mockImplementation((text: string, reviver) => {
    characters += text.length;
    longest = Math.max(longest, text.length);
    return parse(text, reviver) as unknown;
  });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return { characters, longest };
}

/** The negative control of the JSON.parse count: finds each item's end by parsing ever longer prefixes. */
function parseByPrefixes(text: string): unknown[] {
  const items: unknown[] = [];
  let start = 1;
  for (let end = 1; end < text.length; end++) {
    if (text[end] !== ',' && end !== text.length - 1) continue;
    // Parses everything read so far again, to see that the text up to here is whole.
    JSON.parse(`${text.slice(0, end)}]`);
    items.push(JSON.parse(text.slice(start, end)));
    start = end + 1;
  }
  return items;
}

let dir: string;
let server: MockServer;
let checkOrder: RequestCheck;
beforeAll(async () => {
  dir = await writeProject(files());
  // Idle connections outlive the counting between two requests: the server must not close the one fetch reuses.
  server = await serveProject(dir, {
    watch: false,
    bodyLimit: 4 * 1024 * 1024,
    limits: { keepAliveTimeoutMs: 60_000 },
  });
  const project = await loadProject({ projectDir: dir });
  const orders = project.services.find((service) => service.descriptor.uriTemplate === '/orders')!;
  checkOrder = (await compileRequestChecks(project)).of(orders, 'POST')!;
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Sends a body; the answer's status and text. */
async function send(method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}/rest${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/** The check --validate runs on a POST /orders whose parsed body is `body`. */
const validateOrder = (body: unknown, textLength: number) =>
  checkOrder(
    {
      params: {},
      query: {},
      headers: { 'content-type': 'application/json', 'content-length': String(textLength) },
      body,
    } as unknown as Request,
    textLength,
  );

/** 128 KiB of arrays 60 levels deep at 1x (the mock server reads 64): JSON.parse alone would hold the loop on them. */
const denseArrays = (scale: number): string => {
  const nested = `${'['.repeat(60)}${']'.repeat(60)}`;
  return `[${Array.from({ length: Math.floor((128 * 1024 * scale) / (nested.length + 1)) }, () => nested).join(',')}]`;
};

/** A body of `count` empty order lines, each lacking its required sku. */
const emptyLines = (count: number): string => `{"lines":[${Array.from({ length: count }, () => '{}').join(',')}]}`;

describe('the mock server, each request path at 1x and 8x its input, its work counted', () => {
  it('validates uniqueItems on an array of objects reading each item a bounded number of times (ajv’s pairwise check reads 64x at 8x)', async () => {
    const linear = await countAtScales(
      readsOf(
        (count) => ({ lines: orderLines(count) }),
        (body) => expect(validateOrder(body, 0).problems).toEqual([]),
      ),
      200,
    );
    expect(linear.small).toBeGreaterThan(200);
    expect(linear.ratio).toBeLessThanOrEqual(LINEAR);
    // The negative control: ajv's own uniqueItems, which compares every pair of items by deep equality.
    const pairwise = new Ajv().compile({ type: 'object', properties: { lines: { type: 'array', uniqueItems: true } } });
    const quadratic = await countAtScales(
      readsOf(
        (count) => ({ lines: orderLines(count) }),
        (body) => expect(pairwise(body)).toBe(true),
      ),
      40,
    );
    expect(quadratic.ratio).toBeGreaterThan(QUADRATIC);
  });

  it('refuses a duplicate far down a large array with 400 REQUEST_INVALID naming both items', async () => {
    const lines = orderLines(20_000);
    lines.push({ ...lines[3] });
    const answer = await send('POST', '/orders', JSON.stringify({ lines }));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({
      code: 'REQUEST_INVALID',
      problems: [
        {
          location: 'body/lines',
          message: `must NOT have duplicate items (items ## 3 and ${lines.length - 1} are identical)`,
        },
      ],
    });
  });

  it('refuses a value on which a schema pattern would backtrack catastrophically, and serves the next request', async () => {
    // The program as users run it: its main lets V8 finish such a pattern on its linear-time engine (a process-wide
    // flag this test's process does not set). 2^40 backtracking steps would take days: the test's timeout is the
    // deadline.
    const program = await startMockProgram(['--project', dir, '--no-watch']);
    try {
      const post = (body: unknown) =>
        fetch(`${program.url}/rest/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const response = await post({ lines: [], code: `${'a'.repeat(40)}!` });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'REQUEST_INVALID', problems: [{ location: 'body/code' }] });
      expect((await post({ lines: [], code: 'aaaa' })).status).toBe(201);
    } finally {
      await program.stop();
    }
  });

  it('parses a body dense in nested arrays a slice at a time, up to the full body limit: JSON.parse reads each character about once, never more than a slice in one call', async () => {
    // 128 KiB and 1 MiB of arrays: JSON.parse alone held the loop for 70-170 ms on 1 MiB of them.
    const bodies = new Map([1, 8].map((scale) => [scale, denseArrays(scale)]));
    const parsed = new Map<number, { characters: number; longest: number }>();
    for (const [scale, body] of bodies) {
      parsed.set(
        scale,
        await jsonParseReads(async () => expect((await send('POST', '/inbox', body)).status).toBe(202)),
      );
    }
    const [small, large] = [parsed.get(1)!, parsed.get(8)!];
    expect(small.characters).toBeGreaterThanOrEqual(bodies.get(1)!.length);
    expect(large.characters / small.characters).toBeLessThanOrEqual(LINEAR);
    // No call parsed the whole body: the loop was held for a slice at a time (its run of items and two brackets).
    expect(large.longest).toBeLessThanOrEqual(JSON_SLICE_LENGTH + 2);
    expect(bodies.get(8)!.length).toBeGreaterThan(8 * JSON_SLICE_LENGTH);
    // The negative control: the same count over a parse that reads the text again for each item.
    const control = await countAtScales(async (items) => {
      const text = `[${Array.from({ length: items }, (_, i) => `[${i}]`).join(',')}]`;
      return (await jsonParseReads(async () => expect(parseByPrefixes(text)).toHaveLength(items))).characters;
    }, 100);
    expect(control.ratio).toBeGreaterThan(QUADRATIC);
  });

  it('lists the first problem of a large body, reading no more of it for 8x the items (listing them all would read 8x)', async () => {
    // Every order line lacks its required sku: a body over 64 KiB gets its first problem only.
    const reads = await countAtScales(
      readsOf(
        (count) => JSON.parse(emptyLines(count)) as unknown,
        (body) =>
          expect(validateOrder(body, 1024 * 1024)).toEqual({
            problems: [{ location: 'body/lines/0/sku', message: 'is required' }],
            partial: true,
          }),
      ),
      1000,
    );
    expect(reads.ratio).toBeLessThanOrEqual(LINEAR);
    const answer = await send('POST', '/orders', emptyLines(546_000));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual({
      error: 'the request does not match its descriptor (the body is over 64 KiB: the first of its problems is listed)',
      code: 'REQUEST_INVALID',
      problems: [{ location: 'body/lines/0/sku', message: 'is required' }],
    });
  });

  it('renders a JSON template from a body reading each of its values a bounded number of times (a template that writes the list per item reads 64x)', async () => {
    const context = (body: unknown) => ({
      request: { method: 'POST', path: '/echo', params: {}, query: {}, headers: {}, cookies: {}, body },
    });
    const body = (count: number) => ({ text: 'a"\\\n</script>'.repeat(count), lines: orderLines(count) });
    const echo = compileMockTemplate(ECHO_TEMPLATE, 'echo.json.hbs', 'json');
    const reads = await countAtScales(
      readsOf(body, (view) => {
        const rendered = JSON.parse(echo.render(context(view), 'seed')) as { skus: string[] };
        expect(rendered.skus).toHaveLength(view.lines.length);
      }),
      200,
    );
    expect(reads.small).toBeGreaterThan(200);
    expect(reads.ratio).toBeLessThanOrEqual(LINEAR);
    // The negative control: the same renderer and counter on a template that writes the whole list for each item.
    const perItem = compileMockTemplate(
      '[{{#each request.body.lines}}{{json ../request.body.lines}},{{/each}}null]',
      'per-item.json.hbs',
      'json',
    );
    const quadratic = await countAtScales(
      readsOf(body, (view) => perItem.render(context(view), 'seed')),
      50,
    );
    expect(quadratic.ratio).toBeGreaterThan(QUADRATIC);
  });

  it('stores and replaces an item of many members of a stateful collection', async () => {
    // Its work is counted in createResourceState's test (reads of each member, with a quadratic walk refused).
    const item = Object.fromEntries(orderLines(20_000).map(({ sku, n }) => [sku, n]));
    expect((await send('PUT', '/notes/1', JSON.stringify(item))).status).toBe(200);
    const stored = JSON.parse((await send('GET', '/notes/1')).text) as Record<string, unknown>;
    expect(stored).toEqual({ ...item, id: 1 });
  });

  it('lists a stateful collection reading each item once (a listing that writes the list again per item reads 64x)', async () => {
    const reads = await countAtScales(
      readsOf(listItems, async (items) =>
        expect(JSON.parse(await stringifyInChunks(items))).toHaveLength(items.length),
      ),
      1000,
    );
    expect(reads.ratio).toBeLessThanOrEqual(LINEAR);
    // The negative control: the same counter on a listing that writes all items so far for each one.
    const quadratic = await countAtScales(
      readsOf(listItems, (items) => items.map((_, i) => JSON.stringify(items.slice(0, i + 1))).at(-1)),
      50,
    );
    expect(quadratic.ratio).toBeGreaterThan(QUADRATIC);
    const answer = await send('GET', '/list8');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual(listItems(8000));
  });
});
