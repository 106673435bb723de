import { Writable } from 'node:stream';
import pino from 'pino';
import { isRestbusError, type ResponseMessage } from '@restbus/infra';
import type { Forwarder, ReplyUse } from '../forward/create-forwarder';
import { createMetrics } from '../observability/create-metrics';
import type { ApiEndpoint } from '../openapi/endpoint';
import type { ReplyChecker } from './create-reply-checks';
import { createReplyCheckingForwarder } from './create-reply-checking-forwarder';
import type { ReplyViolation } from './reply-violation';
import { MAX_VIOLATIONS_HEADER_LENGTH } from './sl-violations';

type Endpoint = Parameters<Forwarder>[0];

const source = { model: { name: 'listPersons' } } as unknown as ApiEndpoint;
const endpoint = { source, topic: 'easer.get_/persons' } as unknown as Endpoint;
const trace = { requestId: 'r1', traceId: 't1', traceparent: '00-t1-s1-01' } as Parameters<Forwarder>[2];
const request = { cookies: {}, headers: {}, parameters: { query: {}, uri: {} }, body: '' };
const REPLY: ResponseMessage = { status: 200, headers: { 'x-a': '1' }, body: { items: [] } };

const violation = (change: Partial<ReplyViolation> = {}): ReplyViolation => ({
  kind: 'body',
  severity: 'error',
  pointer: '/items/0/name',
  expected: 'string',
  actual: '42',
  code: 'type',
  message: 'must be string',
  ...change,
});

function setUp(
  check: ReplyChecker['check'],
  options: { mode?: 'report' | 'enforce'; sample?: number; random?: () => number; reply?: ResponseMessage } = {},
) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const metrics = createMetrics();
  const checker: ReplyChecker = { check, checkValue: () => [] };
  const forward = createReplyCheckingForwarder({
    forward: async () => options.reply ?? REPLY,
    mode: options.mode ?? 'report',
    sample: options.sample ?? 1,
    checkers: () => new Map([[source, checker]]),
    metrics,
    logger: pino({ level: 'info' }, stream),
    ...(options.random && { random: options.random }),
  });
  return { forward: (use?: ReplyUse) => forward(endpoint, request, trace, use), lines, metrics };
}

describe('a forwarder whose replies are checked', () => {
  it("checks the reply that opens a stream as the stream's first event, and says so when enforce refuses it", async () => {
    const uses: Array<ReplyUse | undefined> = [];
    const { forward } = setUp(
      async (_reply, use) => {
        uses.push(use);
        return [violation({ pointer: '/n' })];
      },
      { mode: 'enforce' },
    );
    const refused = await forward('stream').catch((err: unknown) => err);
    expect(isRestbusError(refused) && refused.code).toBe('REPLY_INVALID');
    expect((refused as Error).message).toBe(
      "the reply of listPersons (its stream's first event) does not match the API description",
    );
    await forward().catch(() => undefined);
    expect(uses).toEqual(['stream', 'answer']);
  });

  it('adds Prism-shaped sl-violations to a reply that breaks its contract, and counts each violation', async () => {
    const { forward, metrics, lines } = setUp(async () => [
      violation(),
      violation({ kind: 'header', pointer: 'header/x-b', code: 'required', message: 'is required' }),
    ]);
    const reply = await forward();
    expect(reply.body).toBe(REPLY.body);
    expect(reply.headers?.['x-a']).toBe('1');
    expect(JSON.parse(String(reply.headers?.['sl-violations']))).toEqual([
      {
        location: ['response', 'body', 'items', '0', 'name'],
        severity: 'Error',
        code: 'type',
        message: 'must be string',
      },
      { location: ['response', 'header', 'x-b'], severity: 'Error', code: 'required', message: 'is required' },
    ]);
    expect(await metrics.registry.getSingleMetricAsString('restbus_reply_violations_total')).toContain(
      'restbus_reply_violations_total{operation="listPersons",kind="body"} 1',
    );
    expect(lines.filter((line) => line.msg === 'reply violates the API description')).toHaveLength(2);
  });

  it('cuts a long sl-violations as Prism does, after "Too many violations! "', async () => {
    const many = Array.from({ length: 300 }, (_, i) => violation({ pointer: `/items/${i}/name` }));
    const { forward, lines } = setUp(async () => many);
    const header = String((await forward()).headers?.['sl-violations']);
    expect(header.startsWith('Too many violations! [{"location":')).toBe(true);
    expect(header.length).toBe('Too many violations! '.length + MAX_VIOLATIONS_HEADER_LENGTH);
    // One line per violation up to 20, then one that counts the rest.
    expect(lines.filter((line) => line.msg === 'reply violates the API description')).toHaveLength(20);
    expect(lines).toContainEqual(expect.objectContaining({ more: 280 }));
  });

  it('writes characters outside ASCII as JSON escapes, which HTTP carries', async () => {
    const { forward } = setUp(async () => [violation({ message: 'must be equal to one of "café"' })]);
    const header = String((await forward()).headers?.['sl-violations']);
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect((JSON.parse(header) as Array<{ message: string }>)[0].message).toBe('must be equal to one of "café"');
  });

  it('refuses a reply with an error in enforce mode: 502 REPLY_INVALID with the problems', async () => {
    const { forward } = setUp(async () => [violation()], { mode: 'enforce' });
    const refused = await forward().catch((err: unknown) => err);
    expect(isRestbusError(refused) && refused).toMatchObject({
      code: 'REPLY_INVALID',
      status: 502,
      details: { problems: [{ location: 'body/items/0/name', message: 'must be string' }] },
    });
  });

  it('lets a reply with warnings only through in enforce mode, with sl-violations', async () => {
    const warning = violation({ kind: 'status', severity: 'warning', pointer: 'status', code: undefined });
    const { forward } = setUp(async () => [warning], { mode: 'enforce' });
    const reply = await forward();
    expect(JSON.parse(String(reply.headers?.['sl-violations']))).toEqual([
      { location: ['response'], severity: 'Warning', message: 'must be string' },
    ]);
  });

  it('says in report mode that a reply could not be checked, and logs why, when the check throws', async () => {
    const { forward, lines, metrics } = setUp(async () => {
      throw new Error('the check ran out of stack');
    });
    const reply = await forward();
    expect(JSON.parse(String(reply.headers?.['sl-violations']))).toEqual([
      {
        location: ['response', 'body'],
        severity: 'Error',
        message: 'could not be checked against the API description',
      },
    ]);
    expect(lines).toContainEqual(
      expect.objectContaining({ operation: 'listPersons', msg: expect.stringMatching(/could not be checked/) }),
    );
    expect(await metrics.registry.getSingleMetricAsString('restbus_reply_violations_total')).toContain(
      'restbus_reply_violations_total{operation="listPersons",kind="body"} 1',
    );
  });

  it('refuses in enforce mode a reply whose check throws, never sending it unchecked', async () => {
    const { forward } = setUp(
      async () => {
        throw new RangeError('Maximum call stack size exceeded');
      },
      { mode: 'enforce' },
    );
    const refused = await forward().catch((err: unknown) => err);
    expect(isRestbusError(refused) && refused).toMatchObject({
      code: 'REPLY_INVALID',
      details: { problems: [{ location: 'body', message: 'could not be checked against the API description' }] },
    });
  });

  it.each([
    ['passes its check', async () => [], 1],
    ['is not sampled', async () => [], 0],
  ])("drops the service's own sl-violations from a reply that %s", async (_what, check, sample) => {
    const forged = { ...REPLY, headers: { 'x-a': '1', 'SL-Violations': '[]', 'sl-violations': '[]' } };
    const { forward } = setUp(check, { reply: forged, sample, random: () => 0.5 });
    expect((await forward()).headers).toEqual({ 'x-a': '1' });
  });

  it("writes the gateway's sl-violations in place of the service's", async () => {
    const forged = { ...REPLY, headers: { 'x-a': '1', 'SL-Violations': '[]' } };
    const { forward } = setUp(async () => [violation()], { reply: forged });
    const headers = (await forward()).headers ?? {};
    expect(Object.keys(headers)).toEqual(['x-a', 'sl-violations']);
    expect(JSON.parse(String(headers['sl-violations']))).toEqual([expect.objectContaining({ code: 'type' })]);
  });

  it('checks only the sampled fraction of replies', async () => {
    let checked = 0;
    const draws = [0.1, 0.6, 0.3, 0.9];
    const { forward } = setUp(
      async () => {
        checked++;
        return [];
      },
      { sample: 0.5, random: () => draws.shift() ?? 1 },
    );
    for (let i = 0; i < 4; i++) await forward();
    expect(checked).toBe(2);
    const never = setUp(async () => [violation()], { sample: 0, random: () => 0 });
    expect(await never.forward()).toBe(REPLY);
  });
});
