import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { SeededRandom } from '@restbus/infra/testing';
import { MAX_MOCK_DELAY_MS } from '../request/read-mock-delay';

export interface HostileMockRequest {
  kind: string;
  /** One character per byte (latin1), as a hostile client writes them. */
  bytes: string;
  /** End the sending side after the bytes (a client that gives up half-way). */
  halfClose: boolean;
  /** Carries the project's login: only such a request may get project content from a server that needs it. */
  loggedIn: boolean;
  /** The status the server without login must answer, for the cases precise enough to know it. */
  expectOpen?: number;
}

// No `/`, `:` or `(`: a 404 or a 400 echoes a random path or name, which must not look like a file path or a stack
// frame to the leak check.
const TOKEN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&*+';
const BYTES = Array.from({ length: 256 }, (_, code) => String.fromCharCode(code)).join('');
const LOGIN = `Authorization: Basic ${Buffer.from('alice:s3cret:pass').toString('base64')}`;
const WRONG_LOGINS = [
  `Authorization: Basic ${Buffer.from('alice:s3cret').toString('base64')}`,
  `Authorization: Basic ${Buffer.from('bob:s3cret:pass').toString('base64')}`,
  `Authorization: Basic ${Buffer.from('alice:s3cret:pass\0').toString('base64')}`,
  `Authorization: Bearer ${Buffer.from('alice:s3cret:pass').toString('base64')}`,
  `Authorization: Basic${Buffer.from('alice:s3cret:pass').toString('base64')}`,
  'Authorization: Basic ',
  'Authorization: Basic !!!',
  `Authorization: Basic ${'QUFB'.repeat(2000)}`,
];
const PATHS = [
  '/rest/users',
  '/rest/users/7',
  '/rest/echo',
  '/rest/report',
  '/rest/session',
  '/rest/broken/x',
  '/rest/monitoring/isAlive',
  '/data/info.txt',
  '/docs/',
  '/',
  '/app.js',
];
const UPS = ['..', '%2e%2e', '%2E%2e', '.%2e', '%2e.', '%252e%252e', '%c0%ae%c0%ae', '%e0%80%ae%e0%80%ae', '.', '..;'];
const SEPARATORS = ['/', '%2f', '%2F', '\\', '%5c', '%c0%af', '%e0%80%af', '%252f', '//', '/./'];
const PATH_PREFIXES = ['', '/rest', '/rest/users', '/data', '/docs', '/services', '/rest/monitoring', '/webui'];
const PATH_TARGETS = ['config.yml', 'server/config.yml', 'server/api.js', 'etc/passwd', 'users', 'rest/users'];
const METHODS = ['PUT', 'put', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE', 'POST'];
const ODD_METHODS = ['__proto__', 'constructor', 'toString', 'PUT ', ' PUT', 'PUT, DELETE', ''];

function line(method: string, target: string, headers: string[], body = '', version = 'HTTP/1.1'): string {
  return [`${method} ${target} ${version}`, ...headers, '', body].join('\r\n');
}

const withLength = (body: string): string[] => [`Content-Length: ${body.length}`];

/**
 * Malformed HTTP/1.1 requests for the mock server, drawn from a seeded generator: bad request lines, invalid and
 * huge headers, broken chunked framing, conflicting Content-Length and Transfer-Encoding, missing Host, odd Expect,
 * CONNECT, truncated, deep and compressed bodies, path tricks, method overrides, and hostile X-Mock-Response and
 * X-Mock-Delay values. Some carry the project's login, most none or a wrong one.
 */
export function createHostileMockRequests(random: SeededRandom, count: number): HostileMockRequest[] {
  const { pick, below, text } = random;
  const host = (): string[] => (below(10) === 0 ? [] : ['Host: hostile']);
  const close = (): string[] => (below(2) === 0 ? ['Connection: close'] : []);
  const path = (): string => (below(8) === 0 ? `/rest/${text(1 + below(12), TOKEN)}` : pick(PATHS));
  // Most carry no login or a wrong one; a few the right one, so that the secured server's services run too.
  const login = (): { headers: string[]; loggedIn: boolean } => {
    const draw = below(6);
    if (draw === 0) return { headers: [LOGIN], loggedIn: true };
    if (draw === 1) return { headers: [pick(WRONG_LOGINS)], loggedIn: false };
    return { headers: [], loggedIn: false };
  };
  const json = ['Content-Type: application/json'];

  const makers: Record<string, () => Omit<HostileMockRequest, 'kind'>> = {
    'bad request line': () => ({
      bytes: pick([
        'GET\r\n\r\n',
        `${text(1 + below(40), BYTES)}\r\n\r\n`,
        'GET /rest/users HTTP/9.9\r\nHost: h\r\n\r\n',
        'GET /rest/users HTTP/1.1 extra\r\nHost: h\r\n\r\n',
        'GET  /rest/users HTTP/1.1\r\nHost: h\r\n\r\n',
        'GET /rest/ users HTTP/1.1\r\nHost: h\r\n\r\n',
        'get /rest/users HTTP/1.1\r\nHost: h\r\n\r\n',
        '/rest/users HTTP/1.1\r\nHost: h\r\n\r\n',
        'GET /rest/users\0 HTTP/1.1\r\nHost: h\r\n\r\n',
        'GET /rest/us\x7fers HTTP/1.1\r\nHost: h\r\n\r\n',
        'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
        `GET /rest/${'a'.repeat(20_000 + below(20_000))} HTTP/1.1\r\nHost: h\r\n\r\n`,
        `${pick(['FOO', 'BREW', 'M-SEARCH', 'PROPFIND', 'TRACE'])} /rest/users HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`,
        'OPTIONS * HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n',
        'GET http://elsewhere/rest/users HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n',
        'GET /rest/users HTTP/1.1\nHost: h\n\n',
        'GET /rest/users HTTP/1.1\rHost: h\r\r',
      ]),
      halfClose: below(3) === 0,
      loggedIn: false,
    }),
    'huge or invalid headers': () => {
      const { headers, loggedIn } = login();
      return {
        bytes: line(pick(['GET', 'POST', 'HEAD']), path(), [
          ...host(),
          ...close(),
          ...headers,
          ...pick([
            [`X-Big: ${'x'.repeat(17_000 + below(40_000))}`],
            Array.from({ length: 500 + below(1500) }, (_, i) => `X-H${i}: ${text(8, TOKEN)}`),
            ['Bad Header: x'],
            [`X-Ctl: a${String.fromCharCode(below(31) + 1)}b`],
            [': empty name'],
            ['NoColonAtAll'],
            ['X-Folded: a', ' continued'],
            ['Host: second'],
            [`X-Latin: ${text(20, BYTES.slice(128))}`],
            [`Cookie: ${text(60, `${TOKEN}=;% "`)}`],
            [
              `Cookie: connect.sid=${pick(['s%3Aabc.def', 's:', '%E0%A4%A', 'x'.repeat(8000), text(40, BYTES.slice(33, 127))])}`,
            ],
            ['Upgrade: websocket', 'Connection: Upgrade'],
            ['Upgrade: h2c', 'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA', 'Connection: Upgrade, HTTP2-Settings'],
            ['X-Forwarded-For: 127.0.0.1', 'X-Forwarded-Host: evil', 'X-Forwarded-Proto: javascript'],
            ['Accept: */*;q=NaN', 'Accept-Encoding: gzip;q=2, br;q=-1', 'Range: bytes=-1-2,9999999999999999-'],
            ['If-None-Match: *', 'If-Modified-Since: Tue, 99 Foo 99999 99:99:99 GMT'],
          ]),
        ]),
        halfClose: false,
        loggedIn,
      };
    },
    'bad chunked body': () => {
      const { headers, loggedIn } = login();
      return {
        bytes: line(
          'POST',
          pick(['/rest/users', '/rest/echo', '/rest/session']),
          [...host(), ...close(), ...headers, ...json, 'Transfer-Encoding: chunked'],
          pick([
            'zz\r\nnope\r\n0\r\n\r\n',
            '5\r\nabc\r\n0\r\n\r\n',
            '3\r\nabcdef\r\n0\r\n\r\n',
            'ffffffffffffffffff\r\nx\r\n',
            '-1\r\nx\r\n0\r\n\r\n',
            `2;${text(10, BYTES)}\r\n{}\r\n0\r\n\r\n`,
            '2\r\n{}',
            '2\r\n{}\r\n0\r\n',
            '2\n{}\n0\n\n',
            `1\r\n[\r\n${'1\r\n1\r\n'.repeat(below(50))}1\r\n]\r\n0\r\nX-Trailer: ${text(10, BYTES)}\r\n\r\n`,
            '2\r\n{}\r\n0\r\n\r\nGARBAGE AFTER THE END',
          ]),
        ),
        halfClose: below(2) === 0,
        loggedIn,
      };
    },
    'conflicting framing': () => {
      const { headers, loggedIn } = login();
      const body = pick(['{}', '2\r\n{}\r\n0\r\n\r\n', `{}GET /rest/users HTTP/1.1\r\nHost: h\r\n\r\n`]);
      return {
        bytes: line(
          'POST',
          pick(['/rest/users', '/rest/echo']),
          [
            ...host(),
            ...close(),
            ...headers,
            ...json,
            ...pick([
              ['Content-Length: 2', 'Transfer-Encoding: chunked'],
              ['Transfer-Encoding: chunked', 'Content-Length: 2'],
              ['Transfer-Encoding: chunked', 'Transfer-Encoding: identity'],
              ['Transfer-Encoding: chunked, identity'],
              ['Transfer-Encoding: identity, chunked', 'Content-Length: 2'],
              ['Transfer-Encoding : chunked'],
              ['Transfer-Encoding: xchunked'],
              ['Transfer-Encoding:\tchunked'],
              ['Transfer-Encoding: CHUNKED'],
              ['Content-Length: 2', 'Content-Length: 2'],
              ['Content-Length: 2, 2'],
              ['Content-Length: 2', 'Content-Length: 5'],
              [`Content-Length: ${pick(['-1', 'abc', '1e3', '99999999999999999999', ' 2 2', '0x10', '+2'])}`],
            ]),
          ],
          body,
        ),
        halfClose: below(2) === 0,
        loggedIn,
      };
    },
    'missing Host': () => {
      const { headers, loggedIn } = login();
      return {
        bytes: line(
          pick(['GET', 'POST', 'DELETE']),
          path(),
          [...close(), ...headers],
          '',
          pick(['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0']),
        ),
        halfClose: false,
        loggedIn,
      };
    },
    'odd Expect': () => {
      const { headers, loggedIn } = login();
      return {
        bytes: line(
          'POST',
          pick(['/rest/users', '/rest/echo']),
          [
            ...host(),
            'Connection: close',
            ...headers,
            ...json,
            `Expect: ${pick(['bogus', '100-continue', '100-Continue', '', '100-continue, x', '200-ok', text(30, BYTES.slice(32, 127))])}`,
            'Content-Length: 2',
          ],
          '{}',
        ),
        halfClose: false,
        loggedIn,
      };
    },
    CONNECT: () => ({
      bytes: line(
        pick(['CONNECT', 'connect']),
        pick(['example.com:443', '127.0.0.1:22', '/rest/users', '*', '[::1]:80']),
        [...host(), ...close()],
      ),
      halfClose: below(2) === 0,
      loggedIn: false,
    }),
    'truncated body': () => {
      const { headers, loggedIn } = login();
      const announced = 10 + below(2000);
      return {
        bytes: line(
          pick(['POST', 'PUT']),
          pick(['/rest/users', '/rest/echo', '/rest/users/9']),
          [...host(), ...headers, ...json, `Content-Length: ${announced}`],
          text(below(announced), BYTES),
        ),
        // Most give up (EOF); a few just stop sending, which only the request timeout ends.
        halfClose: below(6) !== 0,
        loggedIn,
      };
    },
    'deep JSON body': () => {
      const { headers, loggedIn } = login();
      const depth = pick([1, 10, 64, 65, 66, 200, 1000, 4000, 4999, 6000]);
      const shape = below(5);
      const body =
        shape === 0
          ? `${'['.repeat(depth)}${']'.repeat(depth)}`
          : shape === 1
            ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
            : shape === 2
              ? '['.repeat(depth)
              : shape === 3
                ? `{"s":"${'\\"['.repeat(depth)}"}`
                : `${']'.repeat(depth)}${'['.repeat(depth + 70)}`;
      // Only the plain nested arrays, sent to an implementation that reads them, have an answer known in advance.
      const target = pick(['/rest/users', '/rest/users', '/rest/echo', '/rest/session']);
      const known = shape === 0 && target === '/rest/users';
      return {
        bytes: line('POST', target, [...host(), 'Connection: close', ...headers, ...json, ...withLength(body)], body),
        halfClose: false,
        loggedIn,
        expectOpen: known ? (body.length > 10_000 ? 413 : depth > 64 ? 400 : 201) : undefined,
      };
    },
    'compressed or odd body': () => {
      const { headers, loggedIn } = login();
      const bomb = Buffer.from(`{"a":"${'0'.repeat(1_000_000)}"}`);
      const [encoding, bytes] = pick<[string, Buffer]>([
        ['gzip', gzipSync(bomb)],
        ['deflate', deflateSync(bomb)],
        ['br', brotliCompressSync(bomb)],
        ['gzip', Buffer.from(text(200, BYTES), 'latin1')],
        ['gzip, gzip', gzipSync(gzipSync(Buffer.from('{}')))],
        ['x-evil', Buffer.from('{}')],
        ['identity', Buffer.from('{}')],
      ]);
      const type = pick([
        'application/json',
        'application/json; charset=utf-16',
        'application/json; charset=bogus',
        'application/json; charset',
        'application/x-www-form-urlencoded',
        'text/plain; charset=utf-7',
        '*/*',
        text(20, BYTES.slice(32, 127)),
      ]);
      const body = bytes.toString('latin1');
      return {
        bytes: line(
          'POST',
          pick(['/rest/users', '/rest/echo']),
          [
            ...host(),
            'Connection: close',
            ...headers,
            `Content-Type: ${type}`,
            `Content-Encoding: ${encoding}`,
            ...withLength(body),
          ],
          body,
        ),
        halfClose: false,
        loggedIn,
      };
    },
    'path tricks': () => {
      const { headers, loggedIn } = login();
      const target =
        below(3) === 0
          ? pick([
              '//rest//users',
              '///rest///users///',
              `/rest/users/${'a'.repeat(1000 + below(11_000))}`,
              `/${'a/'.repeat(500 + below(3000))}`,
              `/rest/users?${'q=1&'.repeat(100 + below(2000))}`,
              '/rest/%',
              '/rest/%zz',
              '/rest/users/%c3',
              '/rest/users/%ff%fe',
              '/rest/users/%u002e%u002e',
              '/data/info.txt%00',
              '/data/info.txt%00.html',
              '/rest/users#x',
              '/REST/USERS',
              '/rest/Users/',
              '/rest/users;x=1',
              '/rest/%75sers',
              '/rest/monitoring%2fisAlive',
              '/rest/monitoring%2f..%2fusers',
              '/rest/monitoring/%2e%2e/users',
              '/rest/monitoring/../users',
              '/rest/monitoring/..;/users',
              '/rest/monitoring\\..\\users',
              '/rest/monitoringX/..',
              '/rest//monitoring/isAlive',
              '/rest/users/\xe9\xff',
              '/./rest/users',
              '/rest/%2e/users',
              '/rest/users/.',
              '*',
              'rest/users',
              'http://h/rest/users',
              'http://h:99999/rest/users',
              '/%00',
            ])
          : `${pick(PATH_PREFIXES)}/${Array.from({ length: 1 + below(4) }, () => `${pick(UPS)}${pick(SEPARATORS)}`).join('')}${pick(PATH_TARGETS)}`;
      return {
        bytes: line(pick(['GET', 'GET', 'HEAD', 'DELETE']), target, [...host(), ...close(), ...headers]),
        halfClose: false,
        loggedIn,
      };
    },
    'method override': () => {
      const { headers, loggedIn } = login();
      const wanted = below(3) === 0 ? pick(ODD_METHODS) : pick(METHODS);
      const form = below(2) === 0;
      const body = pick([
        '',
        form ? `_method=${encodeURIComponent(wanted)}` : JSON.stringify({ _method: wanted }),
        form ? '_method=PUT&_method=DELETE' : JSON.stringify({ _method: [wanted] }),
        JSON.stringify({ _method: { toString: wanted } }),
        `{"__proto__":${JSON.stringify({ _method: wanted })}}`,
        'null',
        `"${wanted}"`,
      ]);
      return {
        bytes: line(
          pick(['POST', 'POST', 'POST', 'GET']),
          pick([
            '/rest/echo',
            '/rest/users',
            '/rest/users/7',
            '/rest/broken/x',
            '/rest/session',
            '/rest/report',
            '/data/info.txt',
            '/rest/nothing',
          ]),
          [
            ...host(),
            'Connection: close',
            ...headers,
            ...(below(2) === 0 ? [`X-HTTP-Method-Override: ${wanted}`] : []),
            ...(body ? [`Content-Type: ${form ? 'application/x-www-form-urlencoded' : 'application/json'}`] : []),
            ...withLength(body),
          ],
          body,
        ),
        halfClose: false,
        loggedIn,
      };
    },
    'X-Mock-Response': () => {
      const { headers, loggedIn } = login();
      const names = Array.from({ length: 1 + below(2) }, () =>
        pick([
          'OK',
          'Empty',
          'Missing',
          'ok',
          '',
          ' ',
          '__proto__',
          'constructor',
          'toString',
          'hasOwnProperty',
          'OK, Empty',
          text(200, TOKEN),
          'x'.repeat(12_000),
          text(30, BYTES.slice(128)),
        ]),
      );
      return {
        bytes: line(
          pick(['GET', 'HEAD', 'PUT', 'DELETE']),
          pick([
            '/rest/users',
            '/rest/users/7',
            '/rest/report',
            '/rest/echo',
            '/rest/session',
            '/rest/monitoring/isAlive',
          ]),
          [...host(), 'Connection: close', ...headers, ...names.map((name) => `X-Mock-Response: ${name}`)],
        ),
        halfClose: false,
        loggedIn,
      };
    },
    'X-Mock-Delay': () => {
      // In range, but short: the suite must not wait. Everything else must be refused at once, not held.
      const accepted = ['0', '00', '1', '20', '000000020', '\t7', '7 '];
      const refused = [
        '-1',
        '-0',
        'NaN',
        'Infinity',
        '-Infinity',
        '1e3',
        '1e9',
        '0x10',
        '1.5',
        '+5',
        '5ms',
        '',
        '5, 5',
        `${MAX_MOCK_DELAY_MS + 1}`,
        `${MAX_MOCK_DELAY_MS * 10}`,
        '999999999',
        '9999999999',
        '4294967296',
        '9007199254740993',
        '1'.repeat(400),
      ];
      const isAccepted = below(4) === 0;
      const value = pick(isAccepted ? accepted : refused);
      return {
        bytes: line(pick(['GET', 'HEAD']), '/rest/users', [
          'Host: hostile',
          'Connection: close',
          `X-Mock-Delay: ${value}`,
        ]),
        halfClose: false,
        loggedIn: false,
        expectOpen: isAccepted ? 200 : 400,
      };
    },
  };
  const kinds = Object.keys(makers);
  return Array.from({ length: count }, (_, i) => {
    const kind = kinds[i % kinds.length];
    return { kind, ...makers[kind]() };
  });
}

/** One request to the hostile template service: what fetch sends. */
export interface HostileTemplateRequest {
  kind: string;
  method: 'GET' | 'POST';
  /** Path and query, under the server's URL. */
  target: string;
  headers: Record<string, string>;
  body?: string;
  /** The `name` the body carries, when it is JSON: the answer must show it exactly. */
  name?: unknown;
}

/**
 * A JSON template that places request values everywhere a template author might: in strings, as values, in a key,
 * raw (`{{{...}}}`), through `json` and `default`, in `#each`. Whatever a client sends, it must render to JSON that
 * parses, with exactly these members.
 */
export const HOSTILE_TEMPLATE = `{
  "name": "{{request.body.name}}",
  "nameValue": {{request.body.name}},
  "rawInString": "{{{request.body.name}}}",
  "rawValue": {{{request.body.name}}},
  "json": {{json request.body.name}},
  "jsonInString": "{{json request.body.name}}",
  "q": "{{request.query.q}}",
  "qValue": {{request.query.q}},
  "qRaw": {{{request.query.q}}},
  "header": "{{request.headers.x-value}}",
  "headerValue": {{request.headers.x-value}},
  "cookie": "{{request.cookies.c}}",
  "param": "{{request.params.id}}",
  "paramValue": {{request.params.id}},
  "fallback": {{default request.query.limit 10}},
  "keyed": { "{{request.query.key}}": 1 },
  "list": [{{#each request.body.items}}"{{this}}", {{this}}{{#unless @last}}, {{/unless}}{{/each}}],
  "nested": { "inner": "{{request.body.name}}", "innerValue": {{request.body.name}} },
  "end": true
}
`;

/** The members HOSTILE_TEMPLATE renders, at its top level. */
export const HOSTILE_TEMPLATE_MEMBERS = [
  'name',
  'nameValue',
  'rawInString',
  'rawValue',
  'json',
  'jsonInString',
  'q',
  'qValue',
  'qRaw',
  'header',
  'headerValue',
  'cookie',
  'param',
  'paramValue',
  'fallback',
  'keyed',
  'list',
  'nested',
  'end',
];

// Strings that break out of a JSON string or value when inserted as they are, or break what embeds the JSON.
const HOSTILE_STRINGS = [
  '"',
  '\\',
  '\\"',
  '","admin":true,"x":"',
  '1, "admin": true',
  '1}, "admin": {"a": 1',
  '"}], "admin": true, "z": [{"',
  'line\nbreak\r\n',
  'tab\there',
  '\u0000\u0001\u001f\u007f',
  '</script><script>alert(1)</script>',
  '<!--',
  ']]>',
  '\u2028\u2029',
  '\ud800',
  '\udfff\ud800',
  '😀',
  '{{request.path}}',
  '{{{request.body}}}',
  '',
  ' ',
  'null',
  'true',
  '-0',
  '1e999',
  '007',
  '0x10',
  '1'.repeat(400),
  '[1,2]',
  '{"a":1}',
  '__proto__',
  'constructor',
];
const HOSTILE_VALUES: unknown[] = [
  ...HOSTILE_STRINGS,
  0,
  -1.5,
  1e300,
  true,
  false,
  null,
  {},
  [],
  { a: 1, '","admin":true,"': '"' },
  ['a', '"', { b: ['</script>'] }],
  [[[[]]]],
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__": {"polluted": true}}'),
  { toString: 'x', valueOf: 1 },
];

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** The string as UTF-8 carries it: a lone surrogate becomes U+FFFD. */
export const toWellFormed = (value: string): string => value.replace(LONE_SURROGATE, '\ufffd');
const encodeQuery = (value: string): string => encodeURIComponent(toWellFormed(value));
// What a header can carry (latin-1, no control characters but tab), drawn from the hostile strings.
const headerSafe = (value: string): string =>
  // eslint-disable-next-line no-control-regex -- control characters are what a header cannot carry.
  value.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ' ').replace(/[\u0100-\uffff]/g, '?');

/**
 * Requests to the hostile template (served at `/rest/shapes/{id}`): hostile strings, objects and arrays as JSON
 * body fields, repeated query keys (a list) and odd query values, form and text bodies, hostile headers, cookies
 * and path parameters.
 */
export function createHostileTemplateRequests(random: SeededRandom, count: number): HostileTemplateRequest[] {
  const { pick, below } = random;
  const aString = (): string => pick(HOSTILE_STRINGS);
  const query = (): string => {
    const parts: string[] = [];
    const repeats = below(4);
    // Repeated keys make a list; none leaves the value missing.
    for (let i = 0; i < repeats; i++) parts.push(`q=${encodeQuery(aString())}`);
    if (below(2) === 0) parts.push(`key=${encodeQuery(aString())}`);
    if (below(3) === 0) parts.push(`limit=${encodeQuery(aString())}`);
    if (below(4) === 0) parts.push(`q[a]=1`, `q%5Bb%5D=2`);
    return parts.length ? `?${parts.join('&')}` : '';
  };
  // An encoded NUL in a path is refused before any service (400): the other strings reach the template.
  const path = (): string => `/rest/shapes/${encodeQuery(aString().replace(/\0/g, '')) || 'x'}${query()}`;
  const headers = (): Record<string, string> => ({
    'x-value': headerSafe(aString()),
    cookie: `c=${encodeQuery(aString())}; c2="${headerSafe(aString()).replace(/"/g, '')}"`,
  });

  const makers: Record<string, () => Omit<HostileTemplateRequest, 'kind'>> = {
    'JSON body': () => {
      const name = pick(HOSTILE_VALUES);
      const items =
        below(3) === 0 ? pick(HOSTILE_VALUES) : Array.from({ length: below(4) }, () => pick(HOSTILE_VALUES));
      return {
        method: 'POST',
        target: path(),
        headers: { ...headers(), 'content-type': 'application/json' },
        body: JSON.stringify({ name, items }),
        name,
      };
    },
    'form body with repeated fields': () => ({
      method: 'POST',
      target: path(),
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: Array.from({ length: 1 + below(3) }, () => `name=${encodeQuery(aString())}`)
        .concat(`items=${encodeQuery(aString())}`)
        .join('&'),
    }),
    'text body': () => ({
      method: 'POST',
      target: path(),
      headers: { ...headers(), 'content-type': 'text/plain' },
      body: aString(),
    }),
    'query, headers and path only': () => ({ method: 'GET', target: path(), headers: headers() }),
  };
  const kinds = Object.keys(makers);
  return Array.from({ length: count }, (_, i) => {
    const kind = kinds[i % kinds.length];
    return { kind, ...makers[kind]() };
  });
}
