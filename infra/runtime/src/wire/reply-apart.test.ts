import { headers as natsHeaders } from 'nats';
import { jsonText } from './json-text';
import { REPLY_HEAD_HEADER, decodeReplyApart, encodeReplyApart } from './reply-apart';
import type { ResponseMessage } from './types';

/** What the gateway reads back from what a service sends. */
function roundTrip(reply: ResponseMessage): ResponseMessage | undefined {
  const apart = encodeReplyApart(reply);
  const headers = natsHeaders();
  headers.set(REPLY_HEAD_HEADER, apart.head);
  return decodeReplyApart(headers, apart.payload);
}

const text = (body: unknown): string => new TextDecoder().decode(body as Uint8Array);

describe('a reply whose body travels apart', () => {
  it('carries a JSON value as its JSON text, typed JSON unless the reply names a type', () => {
    const reply = roundTrip({ status: 200, body: [{ id: 'p1', name: 'Zoë' }] });
    expect(reply).toMatchObject({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(JSON.parse(text(reply?.body))).toEqual([{ id: 'p1', name: 'Zoë' }]);
    const typed = roundTrip({ headers: { 'Content-Type': 'application/vnd.a+json' }, body: { a: 1 } });
    expect(typed?.headers).toEqual({ 'Content-Type': 'application/vnd.a+json' });
    expect(typed?.status).toBe(200);
  });

  it('carries JSON text as it is, and a string as text', () => {
    expect(text(roundTrip({ body: jsonText('[1, 2]') })?.body)).toBe('[1, 2]');
    const reply = roundTrip({ status: 201, headers: { location: '/a' }, body: 'line\nnext' });
    expect(reply?.headers).toEqual({ location: '/a', 'content-type': 'text/plain; charset=utf-8' });
    expect(text(reply?.body)).toBe('line\nnext');
  });

  it('encodes JSON text once however often it is sent', () => {
    const page = jsonText('[{"name":"Zoë"}]');
    const first = encodeReplyApart({ body: page }).payload;
    expect(new TextDecoder().decode(first)).toBe('[{"name":"Zoë"}]');
    expect(encodeReplyApart({ body: page }).payload).toBe(first);
  });

  it('has no body and no type when the reply has none, and an empty body when it is an empty string', () => {
    expect(roundTrip({ status: 204 })).toEqual({ status: 204, headers: {}, body: undefined });
    expect(roundTrip({ status: 200, body: null })?.body).toBeUndefined();
    expect(text(roundTrip({ body: '' })?.body)).toBe('');
  });

  it('is no reply apart without the head header, so the payload is read as an envelope', () => {
    expect(decodeReplyApart(undefined, new Uint8Array([1]))).toBeUndefined();
    expect(decodeReplyApart(natsHeaders(), new Uint8Array([1]))).toBeUndefined();
  });

  it.each([
    ['not JSON', '{status'],
    ['a status HTTP has not', '{"status":42}'],
    ['headers that are not strings', '{"headers":{"a":{"b":1}}}'],
    ['a body in the head', '{"status":200,"body":"x"}'],
  ])('is BAD_REPLY when the head is %s', (_what, head) => {
    const headers = natsHeaders();
    headers.set(REPLY_HEAD_HEADER, head);
    expect(() => decodeReplyApart(headers, new Uint8Array())).toThrow(expect.objectContaining({ code: 'BAD_REPLY' }));
  });
});
