import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { createApiLinter } from './create-api-linter';
import { formatDiagnostic, LOAD_LIMITS } from '@restbus/openapi';
import { loadApi, loadApis, readApis, type LoadOptions } from './load-api';

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

async function errorOf(file: string, options?: LoadOptions): Promise<RestbusError> {
  const err = await loadApi(file, options).then(
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
      'get /persons/events',
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
        // A response's first example travels, under its media type.
        '200': {
          status: '200',
          headers: {},
          examples: { 'application/json': { id: 'luke', familyName: 'Skywalker', givenName: 'Luke' } },
        },
        '400': {
          status: '400',
          headers: {},
          examples: {
            'application/json': {
              error: 'the id in the body ("leia") differs from the path parameter personId ("luke")',
              code: 'REQUEST_INVALID',
            },
          },
        },
        '500': { status: '500', headers: {}, examples: {} },
        // Only the names of headers travel (see toResponses).
        '503': { status: '503', headers: { 'Retry-After': {} }, examples: {} },
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
    expect(err.message).toMatch(new RegExp(`^${file}:4:1  error  `));
  });

  it('serves an operation without responses, warning with the line and the place of what is missing', async () => {
    const file = await fixture(
      'no-responses.yml',
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get: {summary: x}\n',
    );
    const loaded = await readApis([file]);
    expect(loaded.endpoints.map(({ desc }) => `${desc.method} ${desc.uri}`)).toEqual(['get /a']);
    expect(loaded.diagnostics.map(formatDiagnostic)).toEqual([
      `${file}:5:9  warning  paths./a.get: missing required "responses"`,
    ]);
  });

  it('refuses a document that is neither OpenAPI 3 nor Swagger 2', async () => {
    const file = await fixture('other.yml', 'info: {title: t, version: "1"}\npaths: {}\n');
    expect((await errorOf(file)).message).toBe(
      `${file}:1:1  error  not an API description restbus reads: it needs openapi: 3.0.x or 3.1.x, or swagger: "2.0"`,
    );
  });

  it.each([
    ['an empty file', ''],
    ['a YAML scalar', 'hello world\n'],
    ['a JSON list', '[1, 2]'],
  ])('refuses %s, which parses but describes nothing', async (_what, text) => {
    const file = await fixture('nothing.yml', text);
    expect((await errorOf(file)).message).toBe(
      `${file}:1:1  error  not an API description: the file holds no mapping of OpenAPI fields`,
    );
  });

  it('does not check an XML example as if it were the JSON its schema describes, and does check a JSON one', async () => {
    const file = await fixture(
      'xml-example.yml',
      `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /order:
    get:
      responses:
        "200":
          description: an order
          content:
            application/xml:
              schema: {type: object, properties: {id: {type: integer}}}
              example: "<order><id>1</id></order>"
            application/json:
              schema: {type: object, properties: {id: {type: integer}}}
              example: {id: one}
`,
    );
    const { diagnostics } = await readApis([file]);
    expect(diagnostics.map(({ path }) => path)).toEqual([
      'paths./order.get.responses.200.content.application/json.example.id',
    ]);
  });

  it('serves a description whose lint runs past its time, with a warning that it could not be checked', async () => {
    const file = await fixture(
      'slow-lint.yml',
      'openapi: 3.0.3\ninfo: {version: "1"}\npaths:\n  /a:\n    get:\n      responses: {"200": {description: ok}}\n',
    );
    const loaded = await readApis([file], { linter: createApiLinter({ timeoutMs: 1, cacheDir: 'off' }) });
    expect(loaded.endpoints).toHaveLength(1);
    expect(loaded.diagnostics.map(formatDiagnostic)).toEqual([
      `${file}  warning  could not be checked for warnings: it took longer than 0.001 s`,
    ]);
  });

  it('warns that an OpenAPI 3.2 document is read as 3.1, and serves it', async () => {
    const file = await fixture(
      'later.yml',
      'openapi: 3.2.0\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get:\n      responses: {"200": {description: ok}}\n',
    );
    const loaded = await readApis([file]);
    expect(loaded.endpoints).toHaveLength(1);
    expect(loaded.diagnostics.map(formatDiagnostic)).toContain(
      `${file}:1:1  warning  openapi: OpenAPI 3.2.0 is read as 3.1: what later versions added is not understood`,
    );
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
    expect((await errorOf(file)).message).toMatch(
      new RegExp(`^${file}:7:9  error  paths\\./a\\.get\\.responses\\.200: cannot resolve a \\$ref: .*absent.yml`),
    );
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
    expect((await errorOf(file)).message).toMatch(
      new RegExp(`^${file}:4:\\d+  error  paths\\.${path.replace(/[.*]/g, '\\$&')}: the path `),
    );
  });

  it('says that a missing file does not exist', async () => {
    expect((await errorOf(join(dir, 'absent.yml'))).message).toMatch(
      /absent.yml {2}error {2}cannot read the API description: no such file/,
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
      `${second}:5:5  error  paths./items/{itemId}.get: GET /items/{itemId} is described twice: also in ${first} as /items/{id}`,
    );
  });
});

/** Each level refers to the one below twice: fully dereferenced, it has 2^levels copies of the bottom. */
function exponentialApi(levels: number): string {
  const schemas: Record<string, unknown> = { L0: { type: 'string' } };
  for (let level = 1; level <= levels; level++) {
    const below = { $ref: `#/components/schemas/L${level - 1}` };
    schemas[`L${level}`] = { type: 'object', properties: { a: below, b: below } };
  }
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {
      '/x': {
        post: {
          requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/L${levels}` } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
    components: { schemas },
  });
}

const refTo = (target: string) =>
  `openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get:\n      responses:\n        "200": {$ref: "${target}"}\n`;

describe('loadApi within bounds', () => {
  let apiDir: string;
  let outside: string;

  beforeAll(async () => {
    apiDir = join(dir, 'bounded', 'api');
    outside = join(dir, 'bounded', 'outside');
    await mkdir(apiDir, { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'ok.yml'), 'ok:\n  description: from outside\n');
  });

  it('refuses a document whose $refs expand exponentially, naming the file, a $ref and the limit', async () => {
    const file = join(apiDir, 'exponential.json');
    await writeFile(file, exponentialApi(24));
    const err = await errorOf(file);
    expect(err.code).toBe('OPENAPI_INVALID');
    expect(err.message).toContain(`${file}  error  `);
    expect(err.message).toMatch(/"#\/components\/schemas\/L\d+"/);
    expect(err.message).toContain(String(LOAD_LIMITS.expandedNodes));
  });

  it('still loads a document whose repeated $refs stay within the bound', async () => {
    const file = join(apiDir, 'repeated.json');
    await writeFile(file, exponentialApi(8));
    const [endpoint] = await loadApi(file);
    expect(endpoint.model.requestBody?.content['application/json'].schema).toMatchObject({ type: 'object' });
  });

  it('refuses a document nested deeper than the limit, saying where', async () => {
    const file = join(apiDir, 'deep.json');
    let example: unknown = 'bottom';
    for (let level = 0; level < LOAD_LIMITS.depth + 10; level++) example = { down: example };
    await writeFile(
      file,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: {
          '/a': { get: { responses: { '200': { description: 'ok', content: { 'text/plain': { example } } } } } },
        },
      }),
    );
    const err = await errorOf(file);
    expect(err.message).toMatch(
      new RegExp(`^${file}  error  .*deeper than the limit of ${LOAD_LIMITS.depth} levels.*/paths/~1a/get`),
    );
  });

  it('says that a JSON document nested thousands of levels deep nests too deeply, instead of a stack overflow', async () => {
    const file = join(apiDir, 'very-deep.json');
    const example = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    await writeFile(file, `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"x-deep":${example}}`);
    expect((await errorOf(file)).message).toBe(`${file}  error  nests too deeply to load (thousands of levels)`);
  });

  it('refuses a $ref to a file outside the API folder, naming that file and the flag that allows it', async () => {
    const file = join(apiDir, 'escape.yml');
    await writeFile(file, refTo('../outside/ok.yml#/ok'));
    const err = await errorOf(file);
    expect(err.code).toBe('OPENAPI_INVALID');
    expect(err.message).toContain(`${file}  error  `);
    expect(err.message).toContain(join(outside, 'ok.yml'));
    expect(err.message).toContain('--allowOutsideRefs');
  });

  it('refuses an absolute $ref to a system file', async () => {
    const file = join(apiDir, 'system.yml');
    await writeFile(file, refTo('/etc/hostname'));
    expect((await errorOf(file)).message).toContain('/etc/hostname');
  });

  it('refuses a symbolic link in the API folder that leads outside it', async () => {
    await symlink(join(outside, 'ok.yml'), join(apiDir, 'link.yml'));
    const file = join(apiDir, 'via-link.yml');
    await writeFile(file, refTo('link.yml#/ok'));
    expect((await errorOf(file)).message).toContain(join(apiDir, 'link.yml'));
  });

  it('follows a $ref outside the API folder when allowOutsideRefs is set', async () => {
    const file = join(apiDir, 'allowed.yml');
    await writeFile(file, refTo('../outside/ok.yml#/ok'));
    const [endpoint] = await loadApi(file, { allowOutsideRefs: true });
    expect(endpoint.desc.responses['200']).toEqual({ status: '200', headers: {}, examples: {} });
  });

  it('follows a $ref into a subfolder of the API folder', async () => {
    await mkdir(join(apiDir, 'parts'), { recursive: true });
    await writeFile(join(apiDir, 'parts', 'ok.yml'), 'ok:\n  description: inside\n');
    const file = join(apiDir, 'inside.yml');
    await writeFile(file, refTo('parts/ok.yml#/ok'));
    expect(await loadApi(file)).toHaveLength(1);
  });

  it('refuses a document whose $refs read more files than the limit, naming the one over it', async () => {
    await writeFile(join(apiDir, 'first.yml'), 'ok: {$ref: "second.yml#/ok"}\n');
    await writeFile(join(apiDir, 'second.yml'), 'ok: {description: ok}\n');
    const file = join(apiDir, 'chain.yml');
    await writeFile(file, refTo('first.yml#/ok'));
    expect((await errorOf(file, { limits: { ...LOAD_LIMITS, files: 2 } })).message).toBe(
      `${file}  error  cannot resolve a $ref: ${join(apiDir, 'second.yml')} would be file 3, more than the limit of 2 files`,
    );
  });

  describe('with a FIFO', () => {
    let fifo: string;
    beforeAll(() => {
      fifo = join(dir, 'bounded', 'api.fifo');
      execFileSync('mkfifo', [fifo]);
    });
    afterAll(() => {
      // A reader stuck in open() on the FIFO (the old behaviour) would keep a libuv thread: let it go.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader waits: nothing to release.
      }
    });

    it('refuses it as the API file at once, saying it is not a regular file', async () => {
      const err = await errorOf(fifo);
      expect(err.message).toBe(`${fifo}  error  cannot read the API description: it is a FIFO, not a regular file`);
    });

    it('refuses a $ref to it at once', async () => {
      const file = join(dir, 'bounded', 'to-fifo.yml');
      await writeFile(file, refTo('api.fifo#/ok'));
      expect((await errorOf(file)).message).toBe(
        `${file}  error  cannot resolve a $ref: ${fifo} is a FIFO, not a regular file`,
      );
    });
  });

  it('refuses /dev/zero as the API file at once', async () => {
    expect((await errorOf('/dev/zero')).message).toBe(
      '/dev/zero  error  cannot read the API description: it is a character device, not a regular file',
    );
  });

  it('refuses an API file above the size limit before reading it', async () => {
    const file = join(dir, 'bounded', 'huge.yml');
    await writeFile(file, '');
    await truncate(file, LOAD_LIMITS.fileBytes + 1);
    expect((await errorOf(file)).message).toBe(
      `${file}  error  cannot read the API description: it has ${LOAD_LIMITS.fileBytes + 1} bytes, more than the limit of ${LOAD_LIMITS.fileBytes}`,
    );
  });
});
