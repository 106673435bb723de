import { gzipSync } from 'node:zlib';
import { parse } from 'yaml';
import { chooseRequestHeaders, chooseResponseHeaders } from './choose-headers';
import { addMethod, renderServiceFile } from './edit-yaml';
import { appendServices, singular } from '@restbus/project-format';
import { generalisePath, looksLikeId, toFolderName } from './generalise-path';
import { RECORD_BODY_LIMIT, toMockBody } from './to-mock-body';

describe('generalisePath', () => {
  it.each([
    ['/customers/42', '/customers/{customerId}', ['customers', 'customer']],
    [
      '/customers/42/orders/7',
      '/customers/{customerId}/orders/{orderId}',
      ['customers', 'customer', 'orders', 'order'],
    ],
    ['/categories/3f2504e0-4f89-11d3-9a0c-0305e82c3301', '/categories/{categoryId}', ['categories', 'category']],
    ['/users/507f1f77bcf86cd799439011', '/users/{userId}', ['users', 'user']],
    ['/42', '/{id}', ['item']],
    ['/a/1/2', '/a/{aId}/{id}', ['a', 'a', 'item']],
    ['/order-items/9', '/order-items/{orderItemId}', ['order-items', 'order-item']],
    ['/monitoring/isAlive', '/monitoring/isAlive', ['monitoring', 'isAlive']],
    ['/v1/facade', '/v1/facade', ['v1', 'facade']],
    ['/', '/', ['root']],
  ])('%s is %s in services/%s', (path, uriTemplate, folder) => {
    const route = generalisePath(path);
    expect(route?.uriTemplate).toBe(uriTemplate);
    expect(route?.folder).toEqual(folder);
  });

  it('makes folder names that stay in their folder and are not hidden', () => {
    expect(['.git', 'a%20b', '..x', '~', '%C3%A9t%C3%A9'].map(toFolderName)).toEqual(['git', 'a-b', 'x', '~', 't']);
  });

  it('keeps the values of the parameters, and refuses a segment with a brace', () => {
    expect(generalisePath('/boxes/12/items/x')?.parameters).toEqual([{ name: 'boxId', value: '12' }]);
    expect(generalisePath('/a/{b}')).toBeUndefined();
  });

  it('tells ids from words', () => {
    expect(['1', '007', 'deadbeefdeadbeef0', '3F2504E0-4F89-11D3-9A0C-0305E82C3301'].every(looksLikeId)).toBe(true);
    expect(['v1', 'me', 'abcdefabcdefabcdef', 'deadbeef1', 'search'].some(looksLikeId)).toBe(false);
  });

  it.each([
    ['customers', 'customer'],
    ['categories', 'category'],
    ['boxes', 'box'],
    ['statuses', 'status'],
    ['houses', 'house'],
    ['addresses', 'address'],
    ['status', 'status'],
    ['people', 'person'],
    ['movies', 'movie'],
  ])('the singular of %s is %s', (word, expected) => expect(singular(word)).toBe(expected));
});

describe('chooseResponseHeaders', () => {
  it('keeps Content-Type first and meaningful headers, and leaves out framing, volatile and secret ones', () => {
    const chosen = chooseResponseHeaders(
      {
        'x-total-count': '2',
        'content-type': 'application/json',
        'content-length': '10',
        'transfer-encoding': 'chunked',
        date: 'now',
        etag: '"1"',
        'last-modified': 'then',
        'x-request-id': 'r1',
        'x-ratelimit-remaining': '9',
        location: '/x/1',
        'set-cookie': ['a=1; Path=/', 'b=two%20words; HttpOnly'],
        'x-api-key': 'k',
      },
      false,
    );
    expect(chosen.headers).toEqual([
      { field: 'Content-Type', content: 'application/json' },
      { field: 'X-Total-Count', content: '2' },
      { field: 'Location', content: '/x/1' },
    ]);
    expect(chosen.cookies).toEqual([]);
    expect(chosen.withheld).toEqual(['Set-Cookie', 'X-Api-Key']);
    const secrets = chooseResponseHeaders({ 'set-cookie': ['a=1; Path=/', 'b=two%20words; HttpOnly'] }, true);
    expect(secrets.cookies).toEqual([
      { field: 'a', content: '1' },
      { field: 'b', content: 'two words' },
    ]);
  });

  it('records Accept and Content-Type of a request, and its credentials only when asked', () => {
    const headers = { accept: '*/*', 'content-type': 'text/plain', authorization: 'Basic x', cookie: 'sid=1; t=2' };
    expect(chooseRequestHeaders(headers, false)).toEqual({
      headers: [{ field: 'Content-Type', content: 'text/plain' }],
      cookies: [],
      withheld: ['Authorization', 'Cookie'],
    });
    expect(chooseRequestHeaders(headers, true)).toEqual({
      headers: [
        { field: 'Content-Type', content: 'text/plain' },
        { field: 'Authorization', content: 'Basic x' },
      ],
      cookies: [
        { field: 'sid', content: '1' },
        { field: 't', content: '2' },
      ],
      withheld: [],
    });
  });
});

describe('toMockBody', () => {
  it('pretty-prints JSON, decoding a gzip body', () => {
    const body = toMockBody(gzipSync('{"a":[1]}'), 'application/problem+json', 'gzip');
    expect(body).toEqual({
      kind: 'file',
      extension: 'json',
      json: true,
      data: Buffer.from('{\n  "a": [\n    1\n  ]\n}\n'),
    });
  });

  it('names other types by their extension, never .hbs', () => {
    const extensionOf = (type: string | undefined): unknown => {
      const body = toMockBody(Buffer.from('x'), type, undefined);
      return body.kind === 'file' ? body.extension : body.kind;
    };
    expect(extensionOf('text/plain; charset=utf-8')).toBe('txt');
    expect(extensionOf('text/html')).toBe('html');
    expect(extensionOf('application/xml')).toBe('xml');
    expect(extensionOf('text/x-handlebars-template')).toBe('txt');
    expect(extensionOf('application/x-unknown-thing')).toBe('bin');
    expect(extensionOf(undefined)).toBe('bin');
  });

  it('refuses JSON that does not parse, an unknown encoding, and a body above the bound', () => {
    expect(toMockBody(Buffer.from('{'), 'application/json', undefined).kind).toBe('refused');
    expect(toMockBody(Buffer.from('x'), 'text/plain', 'zstd')).toEqual({
      kind: 'refused',
      reason: 'its Content-Encoding zstd is not one this recorder decodes',
    });
    const bomb = gzipSync(Buffer.alloc(RECORD_BODY_LIMIT + 10));
    expect(toMockBody(bomb, 'text/plain', 'gzip')).toEqual({
      kind: 'refused',
      reason: `the body has more than ${RECORD_BODY_LIMIT} bytes once decoded`,
    });
    expect(toMockBody(Buffer.alloc(0), 'application/json', undefined)).toEqual({ kind: 'empty' });
  });
});

describe('the YAML edits', () => {
  const post = { summary: 'Recorded', responses: [{ name: 'OK', statusCode: 201, reason: 'Created' }] };

  it('adds a method to a flow map, keeping anchors, aliases and merge keys working', () => {
    const text = `# top
name: x
description: y
uriTemplate: /x
base: &base { summary: shared, responses: [] }
methods: { GET: { <<: *base, notes: n } } # flow
`;
    const result = addMethod(text, 'service.yml', 'POST', post);
    expect(result).toContain('# top');
    expect(result).toContain('# flow');
    expect(result).toContain('&base');
    const data = parse(result, { merge: true }) as { methods: Record<string, unknown> };
    expect(data.methods).toEqual({ GET: { summary: 'shared', responses: [], notes: 'n' }, POST: post });
  });

  it('keeps a file indented by four spaces indented by four spaces', () => {
    const text =
      'name: x\ndescription: y\nuriTemplate: /x\nmethods:\n    GET:\n        summary: s\n        responses: []\n';
    expect(addMethod(text, 'service.yml', 'POST', post)).toBe(
      `${text}    POST:\n        summary: Recorded\n        responses:\n            - name: OK\n              statusCode: 201\n              reason: Created\n`,
    );
  });

  it('refuses a method the file declares already', () => {
    const text = 'methods:\n  POST: { summary: s, responses: [] }\n';
    expect(() => addMethod(text, 'service.yml', 'POST', post)).toThrow('service.yml declares POST already');
  });

  it('appends a service to a block or a flow list, touching nothing else', () => {
    expect(appendServices('services:\r\n  - /a # first\r\n# end\r\n', ['/b'])).toBe(
      'services:\r\n  - /a # first\r\n  - /b\r\n# end\r\n',
    );
    expect(appendServices('services: [ /a ]\nx: 1\n', ['/b c'])).toBe('services: [ /a, "/b c" ]\nx: 1\n');
    expect(appendServices('services: []\n', ['/b'])).toBe('services: [/b]\n');
  });

  it('renders a new service.yml that reads back', () => {
    const data = { name: 'n', description: 'd: colon', uriTemplate: '/a/{id}', methods: { GET: post } };
    const text = renderServiceFile(' note', data);
    expect(text.startsWith('# note\n')).toBe(true);
    expect(parse(text)).toEqual(data);
  });
});
