import type { SeededRandom } from './seeded-random';

/** A request body a client might send, with the content type it is sent as. */
export interface HostileBody {
  label: string;
  body: string;
  contentType: string | string[] | undefined;
}

/** A payload for a service subject that no gateway would send. */
export interface RogueMessage {
  label: string;
  payload: Uint8Array;
}

const encoder = new TextEncoder();
const repeatToBytes = (unit: string, bytes: number): string => unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));

/**
 * Ids that have broken stores and subjects before, or could: lone surrogates, lengths around the 512-byte limit
 * and far past NATS's 4096-byte control line, subject specials, percent and path tricks, and pairs of ids that
 * differ only in ways a careless key encoding would erase (NFC and NFD, an id and its own base64url).
 */
export function createHostileIds(random: SeededRandom): string[] {
  const crafted = [
    // Lone surrogates: high, low, reversed pairs, halves of an emoji at either end.
    '\ud800',
    '\udbff',
    '\udc00',
    '\udfff',
    'a\ud800',
    '\ud800b',
    'x\udfffy',
    '\udc00\ud800',
    '\ude00\ud83d',
    '\ud800\ud800',
    `${'\u{1F333}'.repeat(10)}\ud83c`,
    `\udf33${'\u{1F333}'.repeat(10)}`,
    // Around the limit, in bytes of UTF-8 from 1-, 2-, 3- and 4-byte characters.
    'a'.repeat(511),
    'a'.repeat(512),
    'a'.repeat(513),
    `${'\u00e9'.repeat(255)}a`,
    '\u00e9'.repeat(256),
    `${'\u00e9'.repeat(256)}a`,
    `${'\u20ac'.repeat(170)}a`,
    `${'\u20ac'.repeat(170)}ab`,
    `${'\u20ac'.repeat(170)}abc`,
    `${'\u{1F333}'.repeat(127)}abc`,
    '\u{1F333}'.repeat(128),
    `${'\u{1F333}'.repeat(128)}a`,
    'a'.repeat(3000),
    'a'.repeat(5000),
    'a'.repeat(4096),
    repeatToBytes('\u00e9', 3000),
    repeatToBytes('\u20ac', 5000),
    // Very long runs of emoji, with joiners and flags.
    '\u{1F333}'.repeat(750),
    '\u{1F333}'.repeat(1250),
    '\u{1F468}\u200d\u{1F469}\u200d\u{1F467}\u200d\u{1F466}'.repeat(60),
    '\u{1F1E9}\u{1F1EA}'.repeat(200),
    // NATS subject specials and protocol text.
    '.',
    '..',
    '...',
    'a.b',
    'a..b',
    '.a',
    'a.',
    '*',
    '>',
    'a.*',
    'a.>',
    '>.a',
    '*.*.>',
    ' ',
    'a b',
    '\t',
    'a\tb',
    '\r\n',
    'a\r\nPUB $JS.API.STREAM.PURGE.KV_persons 0\r\n\r\n',
    'PING\r\n',
    '\0',
    'a\0b',
    '\0'.repeat(512),
    '$JS.API.STREAM.PURGE.KV_persons',
    '$JS.API.STREAM.DELETE.KV_systems',
    '_INBOX.x',
    '$KV.persons.x',
    '$SRV.PING',
    // Percent sequences and paths.
    '%',
    '%2F',
    '%2e%2e',
    '%00',
    '%ZZ',
    '%252F',
    '%u0041',
    '%F0%9F',
    '%C0%AF',
    '..%2F..%2Fetc%2Fpasswd',
    '/',
    '//',
    '\\',
    '../..',
    '../../etc/passwd',
    'C:\\Windows\\system32',
    '~',
    '?x=1#y',
    // Empty and invisible.
    '',
    '\n',
    '\u00a0',
    '\u2028',
    '\ufeff',
    '\u200b',
    '\u202eevil',
    `a${'\u0301'.repeat(100)}`,
    Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join(''),
    '\u007f\u0085',
    // Pairs a lossy key would merge: each must stay its own record.
    '\u00e9',
    'e\u0301',
    'A',
    'a',
    'YQ',
    'YQ==',
    '\ufb01',
    'fi',
    '\u212a',
    'K',
    '\u00df',
    'ss',
    '\u0131',
    'i',
    '\uff41',
    '\ufffd',
    // Names with a meaning elsewhere.
    '__proto__',
    'constructor',
    'prototype',
    'hasOwnProperty',
    'toString',
    'null',
    'undefined',
    'NaN',
    '0',
    '-1',
    '1e309',
    '[]',
    '{}',
    '{"id":"x"}',
    "'; DROP TABLE persons; --",
    '<script>alert(1)</script>',
    '${jndi:ldap://x/a}',
    '{{7*7}}',
    '\u{1F333}',
    '\u2764\ufe0f',
    '\u2764',
  ];
  const specials = '.*> \t\r\n\0%$_/\\';
  const randomIds = [
    ...Array.from({ length: 20 }, () => random.text(1 + random.below(40))),
    ...Array.from({ length: 10 }, () => random.text(1 + random.below(12), specials)),
    // Random UTF-16 code units, surrogates among them: some well-formed, most not.
    ...Array.from({ length: 12 }, () =>
      Array.from({ length: 1 + random.below(8) }, () => String.fromCharCode(random.below(0x10000))).join(''),
    ),
    ...Array.from({ length: 6 }, () => random.text(500 + random.below(30))),
  ];
  return [...new Set([...crafted, ...randomIds])];
}

/** Bodies no service of this kind takes (all answered 400): not JSON, JSON of no object shape, wrong types. */
export function createJunkBodies(random: SeededRandom): HostileBody[] {
  const json = 'application/json';
  const deep = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const bodies: Array<[string, string]> = [
    ['empty', ''],
    ['whitespace', ' \n\t '],
    ['not JSON', 'hello'],
    ['an open brace', '{'],
    ['single quotes', "{'a':1}"],
    ['a comment', '{/* */}'],
    ['a trailing comma', '{"a":1,}'],
    ['trailing garbage', '{}x'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['a bad escape', '"\\x41"'],
    ['a short unicode escape', '"\\u12"'],
    ['a byte order mark', '\ufeff{}'],
    ['a NUL', '{"a":1}\0'],
    ['null', 'null'],
    ['true', 'true'],
    ['a number', '42'],
    ['a huge number', '1e400'],
    ['negative zero', '-0'],
    ['a string', '"person"'],
    ['an empty array', '[]'],
    ['an array of objects', '[{"id":"a","name":"a","familyName":"a","givenName":"a"}]'],
    ['1000-deep arrays', deep(1000)],
    ['100000-deep arrays', deep(100_000)],
    ['1000-deep objects', `${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}`],
    ['a 200 KB string', JSON.stringify('x'.repeat(200_000))],
    ['a 200 KB array', `[${'0,'.repeat(100_000)}0]`],
    ['an object with only __proto__', '{"__proto__":{"id":"p","name":"p","familyName":"p","givenName":"p"}}'],
    ['an object with only constructor', '{"constructor":{"prototype":{"polluted":true}}}'],
    ['an empty object', '{}'],
    ['random printable text', random.text(200)],
  ];
  const cases: HostileBody[] = bodies.map(([label, body]) => ({ label, body, contentType: json }));
  return cases;
}

/** Content types a JSON API must refuse even for a body it would otherwise take. */
export const REFUSED_CONTENT_TYPES: ReadonlyArray<string | string[] | undefined> = [
  undefined,
  '',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'json',
  'application/xml',
  'text/json',
  ['text/plain', 'application/json'],
  'application/json, text/plain',
];

/** Content types of JSON under another spelling: a service takes a body sent with them. */
export const ACCEPTED_CONTENT_TYPES: readonly string[] = [
  'APPLICATION/JSON',
  'application/json; charset=utf-8',
  ' application/json ;q=1',
  'application/problem+json',
];

/**
 * Payloads for a service subject that are not request messages, or are request messages with a hole in them:
 * `valid` is a request message the gateway could send, for the service's subject.
 */
export function createRogueMessages(valid: object, pathParameter: string): RogueMessage[] {
  const text = (label: string, payload: string): RogueMessage => ({ label, payload: encoder.encode(payload) });
  const message = (label: string, value: unknown): RogueMessage => text(label, JSON.stringify(value));
  const base = valid as Record<string, unknown> & { request: Record<string, unknown> };
  const without = (key: string): Record<string, unknown> => {
    const copy = { ...base };
    delete copy[key];
    return copy;
  };
  const withRequest = (request: Record<string, unknown>): unknown => ({
    ...base,
    request: { ...base.request, ...request },
  });
  return [
    text('an empty payload', ''),
    text('not JSON', 'hello'),
    text('half a JSON object', '{"topic":'),
    { label: 'invalid UTF-8', payload: Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]) },
    { label: 'a UTF-8 encoded lone surrogate', payload: Uint8Array.from([0x22, 0xed, 0xa0, 0x80, 0x22]) },
    text('null', 'null'),
    text('an array', '[]'),
    text('a number', '42'),
    text('a string', '"get"'),
    text('an empty object', '{}'),
    text('100000-deep arrays', `${'['.repeat(100_000)}${']'.repeat(100_000)}`),
    text('900 KB of junk', 'x'.repeat(900_000)),
    message('no topic', without('topic')),
    message('no method', without('method')),
    message('no uri', without('uri')),
    message('no endpointDesc', without('endpointDesc')),
    message('no request', without('request')),
    message('the message under __proto__', { ['__proto__']: base }),
    message('an unknown method', { ...base, method: 'connect' }),
    message('an upper-case method', { ...base, method: 'GET' }),
    message('a request without parameters', withRequest({ parameters: undefined })),
    message('a request body that is a number', withRequest({ body: 42 })),
    message('a request body that is true', withRequest({ body: true })),
    message('headers that are a string', withRequest({ headers: 'content-type: application/json' })),
    message('a header that is a number', withRequest({ headers: { 'content-type': 7 } })),
    message('cookies that are a list', withRequest({ cookies: ['a=b'] })),
    message('path parameters that are null', withRequest({ parameters: { query: {}, uri: null } })),
    message('an unknown body encoding', withRequest({ bodyEncoding: 'gzip' })),
    message(
      'a path parameter that is a number',
      withRequest({ parameters: { query: {}, uri: { [pathParameter]: 7 } } }),
    ),
    message(
      'a path parameter that is a list',
      withRequest({ parameters: { query: {}, uri: { [pathParameter]: ['a'] } } }),
    ),
    message('no path parameter', withRequest({ parameters: { query: {}, uri: {} } })),
    message('the path parameter under another name', withRequest({ parameters: { query: {}, uri: { id: 'x' } } })),
  ];
}

/** Reply subjects outside `_INBOX.` that a rogue client may name to make a service publish where it wants. */
export function createRogueReplySubjects(bucket: string, key: string): string[] {
  return [
    `$JS.API.STREAM.PURGE.KV_${bucket}`,
    `$JS.API.STREAM.DELETE.KV_${bucket}`,
    `$KV.${bucket}.${key}`,
    '_INBOX',
    '_INBOXX.rogue',
    '_inbox.rogue',
    'rogue._INBOX.x',
    '$SRV.PING',
  ];
}
