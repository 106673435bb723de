import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { MAX_LISTED_PROBLEMS, type ResponseMessage } from '@restbus/infra';
import { recordHostileCounts } from '@restbus/infra/testing';
import { loadApis } from '../openapi/load-api';
import type { ApiEndpoint } from '../openapi/endpoint';
import { createStreamEvent } from '../streams/stream-event';
import { createReplyChecks, type ReplyChecker } from './create-reply-checks';

const EVENT = { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } };
/** What EVENT accepts, written out: the oracle of the properties below. */
const isEvent = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  'n' in value &&
  Number.isInteger((value as { n: unknown }).n);

const stream = (path: string, operationId: string, itemSchema: object) => ({
  [path]: {
    get: {
      operationId,
      'x-restbus-stream': { subject: `${operationId}.events` },
      responses: {
        '200': { description: 'the events', content: { 'text/event-stream': { itemSchema } } },
        '403': { description: 'not yours', content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  },
});
const API = {
  openapi: '3.0.3',
  info: { title: 'events', version: '1' },
  paths: {
    ...stream('/counts', 'counts', EVENT),
    ...stream('/words', 'words', { type: 'string' }),
    ...stream('/batches', 'batches', { type: 'array', items: EVENT }),
  },
};
/** OAS 3.2 describes the whole event; its `data`'s contentSchema is what the gateway checks. */
const WHOLE_EVENT_API = {
  openapi: '3.1.0',
  info: { title: 'whole events', version: '1' },
  paths: stream('/whole', 'whole', {
    type: 'object',
    properties: {
      event: { type: 'string' },
      data: { type: 'string', contentMediaType: 'application/json', contentSchema: EVENT },
    },
  }),
};

let dir: string;
let endpoints: ApiEndpoint[];
let checkers: Map<ApiEndpoint, ReplyChecker>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-first-event-'));
  await writeFile(join(dir, 'events.json'), JSON.stringify(API));
  await writeFile(join(dir, 'whole.json'), JSON.stringify(WHOLE_EVENT_API));
  endpoints = await loadApis([join(dir, 'events.json'), join(dir, 'whole.json')], {
    linter: { lint: async () => [] },
  });
  const compiled = createReplyChecks(endpoints);
  expect(compiled.skipped).toEqual([]);
  checkers = compiled.checkers;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function checkerOf(path: string): ReplyChecker {
  const endpoint = endpoints.find((e) => e.desc.uri === path);
  const checker = endpoint && checkers.get(endpoint);
  if (!checker) throw new Error(`no checker for ${path}`);
  return checker;
}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const opening = (body: unknown, headers?: Record<string, string>): ResponseMessage => ({
  status: 200,
  ...(headers && { headers }),
  ...(body !== undefined && { body }),
});
const firstEvent = (path: string, body: unknown) => checkerOf(path).check(opening(body), 'stream');

describe("the reply check of a stream's opening", () => {
  it('passes a snapshot that matches the event schema, as a value, text or bytes, whatever content type it is labelled', async () => {
    const counts = checkerOf('/counts');
    expect(await counts.check(opening({ n: 1 }), 'stream')).toEqual([]);
    expect(await counts.check(opening('{"n":1}'), 'stream')).toEqual([]);
    expect(await counts.check(opening(bytes('{"n":1}'), { 'content-type': 'text/html' }), 'stream')).toEqual([]);
    expect(await counts.check({ ...opening(bytes('{"n":1}')), status: 201 }, 'stream')).toEqual([]);
  });

  it.each([
    ['no body', undefined],
    ['a null body', null],
    ['no bytes', new Uint8Array(0)],
    ['an empty text', ''],
  ])('passes a reply with %s: the stream opens without a first event', async (_what, body) => {
    expect(await firstEvent('/counts', body)).toEqual([]);
  });

  it('refuses a snapshot that breaks the event schema, at the pointer of what breaks it', async () => {
    expect(await firstEvent('/counts', { n: 'one' })).toMatchObject([
      { kind: 'body', severity: 'error', pointer: '/n', code: 'type' },
    ]);
    expect(await firstEvent('/counts', bytes('{}'))).toMatchObject([{ pointer: '/n', code: 'required' }]);
  });

  it('reads text that is not JSON as the JSON string the client gets, and blank text as null', async () => {
    expect(await firstEvent('/words', bytes('hello'))).toEqual([]);
    expect(await firstEvent('/words', bytes('"hello"'))).toEqual([]);
    expect(await firstEvent('/counts', bytes('hello'))).toMatchObject([{ pointer: '', code: 'type' }]);
    expect(await firstEvent('/counts', bytes('  \n'))).toMatchObject([{ pointer: '', code: 'type' }]);
  });

  it("checks an OAS 3.2 whole-event item by its data's contentSchema", async () => {
    expect(await firstEvent('/whole', { n: 3 })).toEqual([]);
    expect(await firstEvent('/whole', { n: 3.5 })).toMatchObject([{ pointer: '/n', code: 'type' }]);
  });

  it('checks a refusal (non-2xx) of a stream operation, and a plain answer, as HTTP answers', async () => {
    const counts = checkerOf('/counts');
    expect(await counts.check({ status: 403, body: { error: 'no' } }, 'stream')).toEqual([]);
    expect(await counts.check({ status: 403, body: bytes('no') }, 'stream')).toMatchObject([{ kind: 'content-type' }]);
    expect(await counts.check(opening({ n: 1 }))).toMatchObject([{ kind: 'content-type' }]);
  });

  it('refuses a snapshot it cannot read as the client would: not UTF-8, too deep, a repeated name', async () => {
    const broken = bytes('{"n":1, "m":"Ada"}');
    broken[13] = 0xff;
    expect(await firstEvent('/counts', broken)).toMatchObject([
      { pointer: '', message: expect.stringContaining('UTF-8') as string },
    ]);
    const deep = 100_000;
    expect(await firstEvent('/counts', bytes(`{"n":1,"m":${'['.repeat(deep)}${']'.repeat(deep)}}`))).toMatchObject([
      { message: expect.stringContaining('nests deeper') as string },
    ]);
    expect(await firstEvent('/counts', bytes('{"n":"one","n":1}'))).toMatchObject([{ pointer: '/n' }]);
  });

  it('lists at most MAX_LISTED_PROBLEMS violations of a large snapshot', async () => {
    const body = bytes(JSON.stringify(Array.from({ length: 5_000 }, () => ({ n: 'x' }))));
    const violations = await firstEvent('/batches', body);
    expect(violations.length).toBeGreaterThan(0);
    expect(violations.length).toBeLessThanOrEqual(MAX_LISTED_PROBLEMS);
  });

  it('never passes a snapshot whose event breaks the schema, nor refuses a plain one (fast-check, fixed seed)', async () => {
    const found = { crashes: 0, uncheckedPasses: 0, falseRefusals: 0 };
    let tried = 0;
    const anyText = fc.oneof(
      fc.string(),
      fc.json({ maxDepth: 4 }),
      fc.record({ n: fc.oneof(fc.integer(), fc.double(), fc.string()) }).map((value) => JSON.stringify(value)),
    );
    const anyBody = fc.oneof(anyText.map(bytes), anyText, fc.uint8Array({ maxLength: 64 }));
    await fc.assert(
      fc.asyncProperty(anyBody, async (body) => {
        tried += 1;
        const payload = typeof body === 'string' ? bytes(body) : body;
        if (payload.length === 0) return;
        const sent = JSON.parse(createStreamEvent({ event: 'message', payload }).data) as unknown;
        try {
          const violations = await firstEvent('/counts', body);
          if (violations.length === 0 && !isEvent(sent)) found.uncheckedPasses += 1;
        } catch {
          found.crashes += 1;
        }
      }),
      { seed: 4432, numRuns: 2_000 },
    );
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.constantFrom('', ' ', '\n\t'), async (n, pad) => {
        tried += 1;
        if ((await firstEvent('/counts', bytes(`${pad}{"n":${n}}${pad}`))).length > 0) found.falseRefusals += 1;
      }),
      { seed: 4433, numRuns: 500 },
    );
    recordHostileCounts("gateway stream opening's reply check", { tried: { bodies: tried }, found });
    expect(found).toEqual({ crashes: 0, uncheckedPasses: 0, falseRefusals: 0 });
  });
});
