import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { loadApi } from './load-api';

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
    expect((await errorOf(file)).message).toMatch(/neither an "openapi: 3.x" nor a "swagger: 2.0" field/);
  });

  it('says that a missing file does not exist', async () => {
    expect((await errorOf(join(dir, 'absent.yml'))).message).toMatch(
      /absent.yml: cannot read the API description: no such file/,
    );
  });
});
