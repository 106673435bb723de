import { createRequestMessage } from '../testing';
import { fromCallbackHandler, readCheckedBody } from './from-callback-handler';
import type { OperationInput } from './operation-types';

type Op = { responses: { 200: { content: { 'application/json': { ok: boolean } } } } };
const input = {
  params: {},
  query: {},
  headers: {},
  body: undefined,
  message: createRequestMessage({}),
} as OperationInput<Op>;

describe('fromCallbackHandler', () => {
  it('answers the reply of the first callback, and hands the handler the request message as data', async () => {
    const seen: unknown[] = [];
    const handler = fromCallbackHandler<Op>((data, cb) => {
      seen.push(data);
      cb(null, { status: 200, body: { ok: true } });
      cb(null, { status: 200, body: { ok: false } });
    });
    await expect(handler(input)).resolves.toEqual({ status: 200, body: { ok: true } });
    expect(seen).toEqual([input.message]);
  });

  it('fails the call when the handler calls back with an error, or with no reply', async () => {
    await expect(fromCallbackHandler<Op>((_data, cb) => cb('the store is gone'))(input)).rejects.toThrow(
      'the store is gone',
    );
    await expect(fromCallbackHandler<Op>((_data, cb) => cb(null))(input)).rejects.toThrow('without a reply');
  });

  it("gives a handler the body its call's check parsed, and refuses a message of no such call", async () => {
    type Post = Op & { requestBody: { content: { 'application/json': { name: string } } } };
    const checked = { ...input, body: { name: 'Luke' }, message: createRequestMessage({}) } as OperationInput<Post>;
    const bodies: Array<{ name: string }> = [];
    await fromCallbackHandler<Post>((data, cb) => {
      bodies.push(readCheckedBody<Post>(data));
      cb(null, { status: 200, body: { ok: true } });
    })(checked);
    expect(bodies).toEqual([{ name: 'Luke' }]);
    expect(bodies[0]).toBe(checked.body);
    expect(() => readCheckedBody<Post>(createRequestMessage({}))).toThrow('a callback handler serves');
  });
});
