import type { SeededRandom } from '@restbus/infra/testing';

export interface RogueReply {
  kind: string;
  /** What the responder sends back, byte for byte. */
  payload: string | Uint8Array;
  /** NATS headers of the reply, e.g. the NATS services error headers. */
  headers: Record<string, string>;
}

const TOKEN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&*+ ';

const isErrorStatus = (status: unknown): boolean => Number.isInteger(status) && Number(status) >= 400;

/**
 * Replies a broken or hostile service could send, drawn from a seeded generator: not JSON, JSON of the wrong
 * shape, a head apart from its body that is broken the same ways, statuses of the wrong type or interim (1xx), headers HTTP cannot carry or too large, bodies JSON
 * cannot write back, and invalid NATS services error headers; a few valid ones among them.
 * A reply with an error status always has a JSON `{error, code}` body and no type of its own, so that every
 * error the client sees, passed through or the gateway's, is JSON.
 */
export function createRogueReplies(random: SeededRandom, count: number): RogueReply[] {
  const { pick, below, text } = random;
  const statuses: unknown[] = [
    undefined,
    200,
    201,
    204,
    304,
    404,
    503,
    599,
    100,
    101,
    103,
    199,
    0,
    -1,
    99,
    600,
    1e9,
    200.5,
    '200',
    true,
    null,
    [200],
    {},
  ];
  const headerSets: Array<() => unknown> = [
    () => undefined,
    () => ({ 'x-fine': text(10, TOKEN), 'set-cookie': ['a=1', 'b=2'] }),
    () => ({ 'x-request-id': 'forged', date: 'Thu, 01 Jan 1970 00:00:00 GMT' }),
    () => ({ 'content-length': '3', 'transfer-encoding': 'chunked', connection: 'upgrade', upgrade: 'h2c' }),
    () => ({ 'content-type': pick(['', 'text/html', 'application/json', 'image/png', 'text/plain; charset=latin1']) }),
    () => ({ 'x-big': 'b'.repeat(17_000 + below(30_000)) }),
    () => Object.fromEntries(Array.from({ length: 800 + below(800) }, (_, i) => [`x-h${i}`, text(16, TOKEN)])),
    () => ({ [pick(['bad name', 'colon:name', '', ':status', 'é', 'x\r\ny', 'a'.repeat(10_000)])]: 'v' }),
    () => ({ 'x-v': pick(['a\r\nset-cookie: evil=1', 'nul\u0000', 'euro €', 'tab\tok', ' padded ']) }),
    // Own keys named like Object.prototype's, as JSON.parse makes them (a literal `__proto__` would not be one).
    () => JSON.parse('{"__proto__":["a"],"constructor":"c","toString":"x"}') as unknown,
    () => pick([[1], 'headers', 42, null, true, [['a', 'b']]]),
    () => ({ 'x-v': pick([{}, true, null, [1], [['a']], Number.MAX_VALUE]) }),
  ];
  const bodies: Array<() => unknown> = [
    () => undefined,
    () => null,
    () => ({ ok: true, list: [1, 2, 3] }),
    () => text(below(200), TOKEN),
    () => '\ud800 lone surrogate',
    () => below(1000),
    () => ({ nested: 'x'.repeat(100_000 + below(200_000)) }),
  ];
  const deep = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const json = (): string => {
    const status = pick(statuses);
    let headers = pick(headerSets)();
    let body = pick(bodies)();
    if (isErrorStatus(status)) {
      body = { error: 'refused by the service', code: 'SERVICE_REFUSED' };
      if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
        headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type'));
      }
    }
    const reply: Record<string, unknown> = {};
    if (status !== undefined) reply.status = status;
    if (headers !== undefined) reply.headers = headers;
    if (body !== undefined) reply.body = body;
    return JSON.stringify(reply);
  };
  const makers: Record<string, () => Omit<RogueReply, 'kind'>> = {
    'not JSON': () => ({
      payload: pick<string | Uint8Array>([
        '',
        'not json',
        '{"status":200',
        '\ufeff{"status":200}',
        '{"status":NaN}',
        '{"status":200} // comment',
        new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
        Uint8Array.from({ length: 1 + below(2000) }, () => below(256)),
      ]),
      headers: {},
    }),
    'JSON of the wrong shape': () => ({
      payload: pick([
        '42',
        '"text"',
        '[1,2]',
        'null',
        'true',
        '{"status":1e400}',
        '{"status":2e2,"body":"two hundred"}',
      ]),
      headers: {},
    }),
    'composed reply': () => ({ payload: json(), headers: {} }),
    'body JSON cannot write': () => ({
      payload: `{"status":200,"body":${deep(50_000 + below(100_000))}}`,
      headers: {},
    }),
    'service error headers': () => ({
      payload: json(),
      headers: {
        'Nats-Service-Error-Code': pick([
          '',
          'abc',
          '99',
          '101',
          '200',
          '302',
          '600',
          '4000',
          '-400',
          '4e2',
          ' 404',
          '404',
          '503',
        ]),
        'Nats-Service-Error': pick(['', 'conflict', text(below(3000), TOKEN)]),
      },
    }),
    // The body apart from its head (Restbus-Reply-Head): heads broken the same ways, payloads of any bytes, except
    // that an error status comes with its {error, code} as above.
    'body apart': () => {
      const reply = JSON.parse(json()) as Record<string, unknown>;
      const body = reply.body;
      delete reply.body;
      const head = pick([
        JSON.stringify(reply),
        '{"status":200',
        'null',
        '[]',
        '{"status":200,"body":"inside"}',
        JSON.stringify({ status: pick(statuses) }),
      ]);
      const status = (/"status":(-?[\d.e]+)/.exec(head) ?? [])[1];
      return {
        payload: isErrorStatus(Number(status))
          ? JSON.stringify({ error: 'refused by the service', code: 'SERVICE_REFUSED' })
          : pick<string | Uint8Array>([
              '',
              typeof body === 'string' ? body : JSON.stringify(body ?? null),
              Uint8Array.from({ length: 1 + below(2000) }, () => below(256)),
            ]),
        headers: { 'Restbus-Reply-Head': head },
      };
    },
  };
  const kinds = Object.keys(makers);
  return Array.from({ length: count }, (_, i) => {
    const kind = kinds[i % kinds.length];
    return { kind, ...makers[kind]() };
  });
}
