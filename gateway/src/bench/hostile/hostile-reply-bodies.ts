/** A reply body a rogue service sends for an operation whose reply the gateway checks. */
export interface HostileReplyBody {
  kind: string;
  body: Buffer;
}

const repeatJoined = (item: string, times: number): string => Array.from({ length: times }, () => item).join(',');

/**
 * Replies built to cost a reply check as much as their size allows: many items each failing several keywords (one
 * problem each), long arrays of equal items under uniqueItems, deep nesting, long strings under a pattern, numbers
 * JSON cannot hold as an integer, duplicate keys, and bytes that are not UTF-8. All stay under NATS' 1 MiB payload.
 */
export function createHostileReplyBodies(): HostileReplyBody[] {
  const text = (kind: string, body: string): HostileReplyBody => ({ kind, body: Buffer.from(body) });
  return [
    text('a valid reply', '{"items":[{"id":1,"name":"ok"}]}'),
    text(
      '30,000 items each failing three keywords',
      `{"items":[${repeatJoined('{"id":"x","name":7,"z":1}', 30_000)}]}`,
    ),
    text('40,000 equal items under uniqueItems', `{"items":[${repeatJoined('{"id":1,"name":"a"}', 40_000)}]}`),
    text('nesting 100,000 deep', `{"items":${'['.repeat(100_000)}${']'.repeat(100_000)}}`),
    text('a 900 KB name under a pattern', `{"items":[{"id":1,"name":"${'a'.repeat(900_000)}!"}]}`),
    text('ids of 1e999', `{"items":[${repeatJoined('{"id":1e999,"name":"a"}', 20_000)}]}`),
    text('duplicate keys', `{"items":[{"id":1,"name":"a","name":7}],"items":[]}`),
    {
      kind: 'bytes that are not UTF-8',
      body: Buffer.concat([Buffer.from('{"items":[{"id":1,"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]),
    },
    text(
      '60,000 keys in one object',
      `{"items":[],${Array.from({ length: 60_000 }, (_, i) => `"k${i}":0`).join(',')}}`,
    ),
  ];
}
