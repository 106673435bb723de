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

  describe('as its encoding writes the fields', () => {
    const lists = testEndpoint('post', '/lists', {
      requestBody: {
        content: {
          [FORM]: {
            schema: {
              type: 'object',
              properties: {
                csv: { type: 'array', items: { type: 'integer' } },
                ssv: { type: 'array', items: { type: 'string' } },
                pipes: { type: 'array', items: { type: 'string' } },
                multi: { type: 'array', items: { type: 'string' } },
                color: { type: 'object', properties: { R: { type: 'integer' } }, additionalProperties: false },
                deep: { type: 'object', properties: { R: { type: 'integer' } } },
                note: { type: 'string' },
              },
            },
            encoding: {
              csv: { style: 'form', explode: false },
              ssv: { style: 'spaceDelimited', explode: false },
              pipes: { style: 'pipeDelimited', explode: false },
              multi: { style: 'form', explode: true },
              color: { style: 'form', explode: false },
              deep: { style: 'deepObject', explode: true },
              note: { style: 'form', explode: false },
            },
          },
        },
      },
    });
    const checkLists = compileRequestChecks([lists]).checks.get(lists)!;

    it('reads a list written unexploded as its items, cut at its style’s delimiter', async () => {
      expect(await checkLists(request('csv=1,2&ssv=a%20b&pipes=a|b&multi=a,b'))).toBeUndefined();
      expect((await checkLists(request('csv=1,x')))?.problems).toEqual([
        { location: 'body/csv/1', message: 'must be integer' },
      ]);
    });

    it('reads an object written unexploded as keys and values in turn, and a deepObject by its brackets', async () => {
      expect(await checkLists(request('color=R,100&deep[R]=5'))).toBeUndefined();
      expect((await checkLists(request('color=R,red,G,1')))?.problems).toEqual([
        { location: 'body/color', message: 'must NOT have additional properties' },
        { location: 'body/color/R', message: 'must be integer' },
      ]);
    });

    it('refuses a list written as one field of more than 1000 items, as a form of more than 1000 fields is', async () => {
      expect((await checkLists(request(`csv=${'1,'.repeat(1000)}1`)))?.problems).toEqual([
        { location: 'body/csv', message: 'has more than 1000 items' },
      ]);
    });

    it('leaves a comma in a field that is no list or object to the field', async () => {
      expect(await checkLists(request('note=a,b'))).toBeUndefined();
    });

    it('refuses an empty OpenAPI 2.0 formData field unless it allows empty values', async () => {
      const swagger = testEndpoint(
        'post',
        '/pets',
        {
          consumes: [FORM],
          parameters: [
            { name: 'name', in: 'formData', type: 'string' },
            { name: 'note', in: 'formData', type: 'string', allowEmptyValue: true },
            { name: 'tags', in: 'formData', type: 'array', items: { type: 'integer' } },
          ],
          responses: { 200: { description: 'ok' } },
        },
        { swagger: '2.0', info: { title: 't', version: '1' } },
      );
      const checkSwagger = compileRequestChecks([swagger]).checks.get(swagger)!;
      expect(await checkSwagger(request('name=Rex&note=&tags=1,2'))).toBeUndefined();
      expect((await checkSwagger(request('name=&note=')))?.problems).toEqual([
        { location: 'body/name', message: 'must not be empty' },
      ]);
      // collectionFormat csv, 2.0's default: one field, its items cut at commas.
      expect((await checkSwagger(request('name=Rex&tags=1,x')))?.problems).toEqual([
        { location: 'body/tags/1', message: 'must be integer' },
      ]);
    });
  });

  describe('of multipart/form-data parts with a content type', () => {
    const MULTIPART = 'multipart/form-data; boundary=b';
    const profile = testEndpoint('post', '/profiles', {
      requestBody: {
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: {
                meta: { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] },
                avatar: { type: 'string', format: 'binary' },
                list: { type: 'array', items: { type: 'integer' } },
              },
            },
            encoding: { avatar: { contentType: 'image/png, image/jpeg' }, list: { contentType: 'application/json' } },
          },
        },
      },
    });
    const checkProfile = compileRequestChecks([profile]).checks.get(profile)!;
    const part = (name: string, value: string, type?: string) =>
      `--b\r\nContent-Disposition: form-data; name="${name}"${type ? `; filename="${name}"` : ''}\r\n` +
      `${type ? `Content-Type: ${type}\r\n` : ''}\r\n${value}\r\n`;
    const body = (...parts: string[]) => `${parts.join('')}--b--\r\n`;

    it('parses a JSON part (an object’s by default) and checks it as a JSON body, not as text', async () => {
      expect(await checkProfile(request(body(part('meta', '{"age":3}'), part('list', '[1,2]')), MULTIPART))).toBe(
        undefined,
      );
      expect((await checkProfile(request(body(part('meta', '{"age":"3"}')), MULTIPART)))?.problems).toEqual([
        { location: 'body/meta/age', message: 'must be integer' },
      ]);
      expect((await checkProfile(request(body(part('list', '{nope')), MULTIPART)))?.problems).toEqual([
        { location: 'body/list', message: 'is not valid JSON' },
      ]);
    });

    it('lists the first problem only of a JSON part over 64 KiB, as of a JSON body', async () => {
      const many = JSON.stringify(Array.from({ length: 20_000 }, () => 'x'));
      expect((await checkProfile(request(body(part('list', many)), MULTIPART)))?.problems).toEqual([
        { location: 'body/list/0', message: 'must be integer' },
      ]);
    });

    it('refuses a file part whose Content-Type is not one its encoding allows', async () => {
      expect(await checkProfile(request(body(part('avatar', 'png', 'image/png')), MULTIPART))).toBeUndefined();
      expect((await checkProfile(request(body(part('avatar', 'gif', 'image/gif')), MULTIPART)))?.problems).toEqual([
        { location: 'body/avatar', message: 'must be sent as image/png, image/jpeg, not image/gif' },
      ]);
    });
  });

  it('refuses an operation whose form schema cannot be compiled, unless it is named to serve unchecked', () => {
    const odd = testEndpoint('post', '/files', {
      operationId: 'sendFiles',
      parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
      requestBody: { content: { [FORM]: { schema: { type: 'object', properties: { f: { $ref: '#/nowhere' } } } } } },
    });
    expect(() => compileRequestChecks([odd])).toThrow(/POST \/files: --validate cannot check it/);
    const { checks, skipped } = compileRequestChecks([odd], { unchecked: ['sendFiles'] });
    expect(skipped).toEqual([expect.stringMatching(/^POST \/files: served unchecked \(--validateUnchecked\): /)]);
    expect(checks.has(odd)).toBe(false);
  });
});
