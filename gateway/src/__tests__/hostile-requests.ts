import type { SeededRandom } from '@restbus/infra/testing';

export interface HostileRequest {
  kind: string;
  bytes: string;
  /** End the sending side after the bytes (a client that gives up half-way). */
  halfClose: boolean;
}

// No `/` or `(`: echoed in a 404, a random path must not look like a file path or a stack frame to the leak check.
const TOKEN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&*+';
const BYTES = Array.from({ length: 256 }, (_, code) => String.fromCharCode(code)).join('');

function line(method: string, target: string, headers: string[], body = '', version = 'HTTP/1.1'): string {
  return [`${method} ${target} ${version}`, ...headers, '', body].join('\r\n');
}

/**
 * Malformed HTTP/1.1 requests for the gateway's edge, drawn from a seeded generator: bad request lines,
 * huge and invalid headers, broken chunked bodies, missing Host, odd Expect, CONNECT and truncated bodies.
 */
export function createHostileRequests(random: SeededRandom, count: number): HostileRequest[] {
  const { pick, below, text } = random;
  const host = (): string[] => (below(8) === 0 ? [] : ['Host: hostile']);
  const close = (): string[] => (below(2) === 0 ? ['Connection: close'] : []);
  const path = (): string => pick(['/items', '/items/7', '/rogue', '/-/health', `/${text(1 + below(12), TOKEN)}`]);
  const makers: Record<string, () => Omit<HostileRequest, 'kind'>> = {
    'bad request line': () => ({
      bytes: pick([
        'GET\r\n\r\n',
        `${text(1 + below(40), BYTES)}\r\n\r\n`,
        'GET /items HTTP/9.9\r\nHost: h\r\n\r\n',
        'GET /items HTTP/1.1 extra\r\nHost: h\r\n\r\n',
        'GET  /items HTTP/1.1\r\nHost: h\r\n\r\n',
        'GET /it ems HTTP/1.1\r\nHost: h\r\n\r\n',
        'get /items HTTP/1.1\r\nHost: h\r\n\r\n',
        '/items HTTP/1.1\r\nHost: h\r\n\r\n',
        'GET /items\0 HTTP/1.1\r\nHost: h\r\n\r\n',
        'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
        `GET /${'a'.repeat(20_000 + below(20_000))} HTTP/1.1\r\nHost: h\r\n\r\n`,
        `${pick(['FOO', 'BREW', 'M-SEARCH', 'PROPFIND'])} /items HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`,
        'OPTIONS * HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n',
        'GET http://elsewhere/items HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n',
        'GET /items HTTP/1.1\nHost: h\n\n',
      ]),
      halfClose: below(3) === 0,
    }),
    'huge or invalid headers': () => ({
      bytes: line(pick(['GET', 'POST', 'HEAD']), path(), [
        ...host(),
        ...close(),
        ...pick([
          [`X-Big: ${'x'.repeat(17_000 + below(40_000))}`],
          Array.from({ length: 500 + below(1500) }, (_, i) => `X-H${i}: ${text(8, TOKEN)}`),
          ['Bad Header: x'],
          [`X-Ctl: a${String.fromCharCode(below(31) + 1)}b`],
          [': empty name'],
          ['NoColonAtAll'],
          ['X-Folded: a', ' continued'],
          ['Content-Length: 5', 'Content-Length: 6'],
          [`Content-Length: ${pick(['-1', 'abc', '1e3', '99999999999999999999', ' 5 5', '0x10'])}`],
          ['Transfer-Encoding: gzip, chunked', 'Content-Length: 3'],
          ['Transfer-Encoding: identity'],
          ['Host: second'],
          [`X-Latin: ${text(20, BYTES.slice(128))}`],
          [`Cookie: ${text(60, `${TOKEN}=;% "`)}`],
          [`traceparent: ${text(55, '0123456789abcdef-')}`, `X-Request-Id: ${text(200, TOKEN)}`],
          ['Upgrade: websocket', 'Connection: Upgrade'],
        ]),
      ]),
      halfClose: false,
    }),
    'bad chunked body': () => ({
      bytes: line(
        'POST',
        '/items',
        [...host(), ...close(), 'Transfer-Encoding: chunked'],
        pick([
          'zz\r\nnope\r\n0\r\n\r\n',
          '5\r\nabc\r\n0\r\n\r\n',
          '3\r\nabcdef\r\n0\r\n\r\n',
          'ffffffffffffffffff\r\nx\r\n',
          '-1\r\nx\r\n0\r\n\r\n',
          `3;${text(10, BYTES)}\r\nabc\r\n0\r\n\r\n`,
          '3\r\nabc',
          '3\r\nabc\r\n0\r\n',
          '3\nabc\n0\n\n',
          `${'1\r\na\r\n'.repeat(1 + below(50))}0\r\nX-Trailer: ${text(10, BYTES)}\r\n\r\n`,
          '0\r\n\r\nGARBAGE AFTER THE END',
        ]),
      ),
      halfClose: below(2) === 0,
    }),
    'missing Host': () => ({
      bytes: line(pick(['GET', 'POST', 'DELETE']), path(), close(), '', pick(['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0'])),
      halfClose: false,
    }),
    'odd Expect': () => ({
      bytes: line(
        'POST',
        '/items',
        [
          ...host(),
          'Connection: close',
          `Expect: ${pick(['bogus', '100-continue', '100-Continue', '', '100-continue, x', '200-ok', text(30, BYTES.slice(32, 127))])}`,
          'Content-Length: 2',
        ],
        '{}',
      ),
      halfClose: false,
    }),
    CONNECT: () => ({
      bytes: line('CONNECT', pick(['example.com:443', '127.0.0.1:22', '/items', '*', '[::1]:80']), [
        ...host(),
        ...close(),
      ]),
      halfClose: below(2) === 0,
    }),
    'truncated body': () => {
      const announced = 10 + below(2000);
      return {
        bytes: line(
          pick(['POST', 'PUT']),
          pick(['/items', '/items/9']),
          [...host(), 'Content-Type: application/json', `Content-Length: ${announced}`],
          text(below(announced), BYTES),
        ),
        // Most give up (EOF); a few just stop sending, which only the request timeout ends.
        halfClose: below(6) !== 0,
      };
    },
  };
  const kinds = Object.keys(makers);
  return Array.from({ length: count }, (_, i) => {
    const kind = kinds[i % kinds.length];
    return { kind, ...makers[kind]() };
  });
}

/** The paths of the hostile -m document (see hostile-http.integration.test.ts) and what each may answer. */
export const MOCK_PATHS = {
  /** Answered from the document: 2xx, or 4xx for what the request asks wrongly. */
  answered: [
    '/named',
    '/interim',
    '/headers',
    '/types',
    '/secured/empty',
    '/secured/cookie',
    '/secured/crlf',
    '/secured/query',
    '/secured/proto',
    '/secured/undeclared',
  ],
  /** Schemas whose sample cannot fit: 500 MOCK_UNAVAILABLE, at once. */
  tooLarge: ['/grid', '/many', '/long'],
} as const;

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__'];

/**
 * Requests for a gateway run with -m (and --validate) on the hostile document: odd `Prefer` (prototype keys, 1xx and
 * non-numeric codes, quotes, 12 KB of preferences), odd `Accept` (thousands of ranges, wildcards, junk), odd
 * credentials (cookies, Authorization, query keys), and JSON bodies that validation must read in linear time (arrays
 * of repeated objects for uniqueItems, 5,000 levels of nesting). Each is one raw HTTP/1.1 request that closes.
 */
export function createHostileMockRequests(random: SeededRandom, count: number): HostileRequest[] {
  const { pick, below, text } = random;
  const prefer = (): string =>
    pick([
      `example=${pick(PROTOTYPE_KEYS)}`,
      `example="${pick(PROTOTYPE_KEYS)}"`,
      `code=${pick(['100', '101', '199', '1xx', '1XX', 'abc', '600', '-1', '', '2000', '99999999999999999999', '404', '200', '500'])}`,
      `code="${below(700)}"; example=${text(below(20), TOKEN)}`,
      `example=${text(1 + below(200), TOKEN)}`,
      `${'x=y, '.repeat(500 + below(1500))}example=one`,
      `example=${'"'.repeat(1 + below(5))}one`,
      `respond-async, wait=${below(100)}, handling=lenient, return=minimal`,
      `code=${' '.repeat(below(2000))}"${'x'.repeat(below(50))}`,
    ]);
  const accept = (): string =>
    pick([
      Array.from({ length: 500 + below(1000) }, (_, i) => `application/x${i};q=0.${below(10)}`).join(','),
      Array.from({ length: 200 + below(400) }, () =>
        pick(['*/*', 'text/*', 'application/*', 'application/t1+json']),
      ).join(','),
      `application/json;${'a=b;'.repeat(below(500))}q=0.5`,
      pick(['', '*', '/', ';;;', 'application/', '*/json', 'text/plain;q=abc', 'application/json;q=-1', 'image/png']),
      text(1 + below(200), `${TOKEN}/;=, `),
    ]);
  const credentials = (): string[] =>
    pick([
      [`Cookie: ${text(1 + below(300), `${TOKEN}=; `)}`],
      ['Cookie: sid=1'],
      [`Cookie: ${'a=1; '.repeat(below(800))}sid=2`],
      [`Authorization: ${pick(['Bearer', 'Bearer ', 'Basic', 'ApiKey x', text(40, BYTES.slice(32, 127))])}`],
      [`__proto__: ${text(8, TOKEN)}`],
      [],
    ]);
  const path = (): string => {
    const base = pick([...MOCK_PATHS.answered, ...MOCK_PATHS.tooLarge]);
    return pick([base, `${base}?${pick(PROTOTYPE_KEYS)}=1`, `${base}?k=${text(8, TOKEN)}&__proto__[x]=1`]);
  };
  const get = (headers: string[]): string =>
    line(pick(['GET', 'GET', 'HEAD']), path(), ['Host: h', 'Connection: close', ...headers]);
  const post = (body: string): string =>
    line(
      'POST',
      '/unique',
      ['Host: h', 'Connection: close', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`],
      body,
    );
  const repeated = (): string => {
    const item = { id: below(5), tags: ['a', 'b'], nested: { n: below(3) } };
    return JSON.stringify(
      Array.from({ length: 500 + below(3000) }, (_, i) => (below(4) === 0 ? item : { ...item, id: i })),
    );
  };
  const makers: Record<string, () => string> = {
    'odd Prefer': () => get([`Prefer: ${prefer()}`]),
    'odd Accept': () => get([`Accept: ${accept()}`]),
    'odd credentials': () => get(credentials()),
    'Prefer and Accept together': () => get([`Prefer: ${prefer()}`, `Accept: ${accept()}`, ...credentials()]),
    'uniqueItems body': () => post(repeated()),
    'deep body': () => post(`[${'['.repeat(1000 + below(5000))}${']'.repeat(1000 + below(5000))}]`),
  };
  const kinds = Object.keys(makers);
  return Array.from({ length: count }, (_, i) => {
    const kind = kinds[i % kinds.length];
    return { kind, bytes: makers[kind](), halfClose: false };
  });
}
