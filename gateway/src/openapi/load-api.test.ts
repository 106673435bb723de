import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { loadApi, loadApis } from './load-api';

const personApi = resolve(__dirname, '../../../person-service/person-api.yml');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-openapi-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fixture(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

async function errorOf(file: string): Promise<RestbusError> {
  const err = await loadApi(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof RestbusError)) throw new Error(`expected a RestbusError, got ${String(err)}`);
  return err;
}

describe('loadApi', () => {
  it('lists every operation of the person API as an endpoint', async () => {
    const endpoints = await loadApi(personApi);
    expect(endpoints.map(({ desc }) => `${desc.method} ${desc.uri}`)).toEqual([
      'get /persons',
      'post /persons',
      'delete /persons',
      'get /persons/{personId}',
      'put /persons/{personId}',
      'delete /persons/{personId}',
    ]);
  });

  it('describes an OAS 3 operation as the wire contract wants it', async () => {
    const put = (await loadApi(personApi)).find(({ desc }) => desc.method === 'put')!.desc;
    expect(put).toEqual({
      uri: '/persons/{personId}',
      jsfUri: '/persons/:personId',
      method: 'put',
      operationId: null,
      consumes: ['application/json'],
      produces: ['application/json'],
      responses: {
        '200': { status: '200', headers: {}, examples: {} },
        '400': {
          status: '400',
          headers: {},
          examples: { 'application/json': { error: '/id: must be equal to the path parameter personId' } },
        },
      },
    });
  });

  it('reads Swagger 2.0 consumes, produces and operationId', async () => {
    const file = await fixture(
      'swagger.json',
      JSON.stringify({
        swagger: '2.0',
        info: { title: 't', version: '1' },
        consumes: ['application/json'],
        paths: {
          '/items': {
            post: { operationId: 'addItem', produces: ['text/plain'], responses: { '201': { description: 'ok' } } },
          },
        },
      }),
    );
    const [endpoint] = await loadApi(file);
    expect(endpoint.desc).toMatchObject({
      operationId: 'addItem',
      consumes: ['application/json'],
      produces: ['text/plain'],
    });
  });

  it('names the file and the line of a YAML syntax error', async () => {
    const file = await fixture('broken.yml', 'openapi: 3.0.3\ninfo:\n  title: [unclosed\n');
    const err = await errorOf(file);
    expect(err.code).toBe('OPENAPI_INVALID');
    expect(err.message).toMatch(new RegExp(`^${file}:\\d+: `));
  });

  it('names the location of a missing property', async () => {
    const file = await fixture(
      'no-responses.yml',
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get: {summary: x}\n',
    );
    expect((await errorOf(file)).message).toBe(
      `${file}: not a valid API description: /paths//a/get: must have required property 'responses'`,
    );
  });

  it('refuses a document that is neither OpenAPI 3 nor Swagger 2', async () => {
    const file = await fixture('other.yml', 'info: {title: t, version: "1"}\npaths: {}\n');
    expect((await errorOf(file)).message).toMatch(new RegExp(`^${file}: not a valid API description: `));
  });

  it('resolves $refs across files in an OpenAPI 3.1 document', async () => {
    await fixture('parts.yml', 'ok:\n  description: ok\n  content:\n    text/csv:\n      example: "a,b"\n');
    const file = await fixture(
      'main-3.1.yml',
      'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths:\n  /report:\n    get:\n      responses:\n        "200": {$ref: "parts.yml#/ok"}\n',
    );
    const [endpoint] = await loadApi(file);
    expect(endpoint.desc.produces).toEqual(['text/csv']);
    expect(endpoint.desc.responses['200'].examples).toEqual({ 'text/csv': 'a,b' });
  });

  it('names the file whose $ref cannot be resolved', async () => {
    const file = await fixture(
      'dangling.yml',
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get:\n      responses:\n        "200": {$ref: "absent.yml#/x"}\n',
    );
    expect((await errorOf(file)).message).toMatch(new RegExp(`^${file}: cannot resolve a \\$ref: .*absent.yml`));
  });

  it.each([
    ['a wildcard character', '/files/*'],
    ['a full wildcard', '/files/>'],
    ['an empty subject token', '/v1..json'],
  ])('refuses a path with %s instead of producing an unsafe subject', async (_what, path) => {
    const file = await fixture(
      'unsafe.yml',
      `openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  "${path}":\n    get:\n      responses: {"200": {description: ok}}\n`,
    );
    expect((await errorOf(file)).message).toContain(`the path "${path}"`);
  });

  it('says that a missing file does not exist', async () => {
    expect((await errorOf(join(dir, 'absent.yml'))).message).toMatch(
      /absent.yml: cannot read the API description: no such file/,
    );
  });
});

describe('loadApis', () => {
  const api = (path: string) =>
    `openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  ${path}:\n    get:\n      responses: {"200": {description: ok}}\n`;

  it('serves the endpoints of every file', async () => {
    const files = [await fixture('one.yml', api('/one')), await fixture('two.yml', api('/two'))];
    expect((await loadApis(files)).map(({ desc, file }) => [desc.uri, file])).toEqual([
      ['/one', files[0]],
      ['/two', files[1]],
    ]);
  });

  it('refuses the same method and path in two files, naming both', async () => {
    const first = await fixture('first.yml', api('/items/{id}'));
    const second = await fixture('second.yml', api('/items/{itemId}'));
    await expect(loadApis([first, second])).rejects.toThrow(
      `GET /items/{itemId} is described twice: in ${first} (as /items/{id}) and in ${second}`,
    );
  });
});
