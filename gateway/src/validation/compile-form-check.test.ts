import type { IncomingRequest } from '@restbus/infra';
import { testEndpoint } from '../__tests__/start-test-gateway';
import { compileRequestChecks } from './create-request-validator';

const FORM = 'application/x-www-form-urlencoded';

const form = {
  type: 'object',
  properties: { age: { type: 'integer' }, name: { type: 'string' } },
  required: ['name'],
};

const post = testEndpoint('post', '/pets', {
  parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 10 } }],
  requestBody: {
    content: { 'application/json': { schema: { type: 'object' } }, [`${FORM}; charset=utf-8`]: { schema: form } },
  },
});

const check = compileRequestChecks([post]).checks.get(post)!;

function request(body: string, type = FORM, query: Record<string, string> = {}): IncomingRequest {
  return { cookies: {}, headers: { 'content-type': type }, parameters: { uri: {}, query }, body };
}

describe('the --validate check of a URL-encoded body', () => {
  it('lists a form’s problems with the parameters’ problems', async () => {
    expect((await check(request('age=x', `${FORM}; charset=utf-8`, { limit: '11' })))?.problems).toEqual([
      { location: 'query.limit', message: 'must be <= 10' },
      { location: 'body', message: "must have required property 'name'" },
      { location: 'body/age', message: 'must be integer' },
    ]);
  });

  it('reads a body of another type as that type, not as a form', async () => {
    expect(await check(request('{"age":"x"}', 'application/json'))).toBeUndefined();
  });

  it('refuses a form of more than 1000 fields, as a query of more than 1000 parameters is', async () => {
    const fields = Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join('&');
    expect((await check(request(`name=a&${fields}`)))?.problems).toEqual([
      { location: 'body', message: 'has more than 1000 fields' },
    ]);
  });

  it('lists at most 100 of a form’s problems and says how many there were', async () => {
    const counts = testEndpoint('post', '/counts', {
      requestBody: { content: { [FORM]: { schema: { type: 'object', additionalProperties: { type: 'integer' } } } } },
    });
    const fields = Array.from({ length: 150 }, (_, i) => `f${i}=x`).join('&');
    const refusal = await compileRequestChecks([counts]).checks.get(counts)!(request(fields));
    expect(refusal?.message).toBe(
      'the request does not match the API description (the first 100 of 150 problems are listed)',
    );
    expect(refusal?.problems).toHaveLength(100);
  });

  it('refuses a form body whose bytes are not text', async () => {
    const call = { ...request('/w=='), bodyEncoding: 'base64' as const };
    expect((await check(call))?.problems).toEqual([{ location: 'body', message: 'is not URL-encoded text' }]);
  });

  describe('of multipart/form-data', () => {
    const MULTIPART = 'multipart/form-data; boundary=b';
    const upload = testEndpoint('post', '/uploads', {
      requestBody: {
        content: {
          'multipart/form-data': {
            schema: { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } } },
          },
        },
      },
    });
    const checkUpload = compileRequestChecks([upload]).checks.get(upload)!;
    const multipart = (...parts: Array<[string, string]>) =>
      parts
        .map(([name, value]) => `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
        .join('') + '--b--\r\n';

    it('reads parts of one name as a list, each checked against the items’ schema', async () => {
      expect(await checkUpload(request(multipart(['ids', '1'], ['ids', '2']), MULTIPART))).toBeUndefined();
      expect((await checkUpload(request(multipart(['ids', '1'], ['ids', 'x']), MULTIPART)))?.problems).toEqual([
        { location: 'body/ids/1', message: 'must be integer' },
      ]);
    });

    it('refuses a multipart form of more than 1000 parts', async () => {
      const parts = Array.from({ length: 1001 }, (_, i): [string, string] => [`f${i}`, '1']);
      expect((await checkUpload(request(multipart(...parts), MULTIPART)))?.problems).toEqual([
        { location: 'body', message: 'has more than 1000 fields' },
      ]);
    });
  });

  it('leaves a form whose schema cannot be compiled unchecked, and still checks the parameters', () => {
    const odd = testEndpoint('post', '/files', {
      parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
      requestBody: { content: { [FORM]: { schema: { type: 'object', properties: { f: { $ref: '#/nowhere' } } } } } },
    });
    const { checks, skipped } = compileRequestChecks([odd]);
    expect(skipped).toEqual([expect.stringMatching(/^POST \/files: its form body is left unchecked: /)]);
    expect(checks.has(odd)).toBe(true);
  });
});
