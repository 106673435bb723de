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
