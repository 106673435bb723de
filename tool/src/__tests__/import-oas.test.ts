import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse } from 'yaml';
import { createLogger, isJsonObject, type JsonObject } from '@restbus/infra';
import { startMockServer, type MockServer } from '@restbus/mock-server';
// The gateway is not a dependency of the tool: its loader is used here only to prove it reads the export.
import { loadApi } from '@restbus/gateway/testing';
import { generateTests } from '../testgen';
import { runGeneratedTests } from './run-generated-tests';
import { makeTempDir, runTool, runToolProcess, snapshotTree } from './tool-helpers';

/** The JSON Schema 2020-12 validator of the mock server's own ajv (its --validate compiles request schemas with it). */
const Ajv2020 = (
  createRequire(require.resolve('@restbus/mock-server/package.json'))('ajv/dist/2020') as {
    default: new (options: object) => { compile(schema: object): (data: unknown) => boolean };
  }
).default;

const FIXTURES = join(__dirname, 'fixtures', 'import-oas');
const METHODS = ['get', 'put', 'post', 'delete'];
/** Header parameters OpenAPI ignores (and the import leaves out, with a warning). */
const IGNORED_HEADERS = ['accept', 'content-type', 'authorization'];

/**
 * A dereferenced Swagger 2.0 / OpenAPI 3.0 schema in OpenAPI 3.1 terms, as the import promises to write it:
 * `nullable: true` (`x-nullable` in 2.0) is `null` among the types. Cycles are kept (the copy is memoised).
 */
function as31(schema: unknown, copies = new Map<object, unknown>()): unknown {
  if (Array.isArray(schema)) return schema.map((item) => as31(item, copies));
  if (!isJsonObject(schema)) return schema;
  const known = copies.get(schema);
  if (known) return known;
  const copy: JsonObject = {};
  copies.set(schema, copy);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'x-nullable') continue;
    copy[key] = ['example', 'default', 'enum'].includes(key) ? value : as31(value, copies);
  }
  if ((schema.nullable === true || schema['x-nullable'] === true) && typeof copy.type === 'string') {
    copy.type = [copy.type, 'null'];
  }
  return copy;
}

interface Operation {
  parameters: Array<{ name: string; in: string; required: boolean; type: unknown }>;
  requestSchema?: unknown;
  responses: Record<string, unknown>;
}

const jsonSchemaOf = (content: unknown): unknown => {
  if (!isJsonObject(content)) return undefined;
  const type = Object.keys(content).find((name) => /^application\/([\w.+-]+\+)?json$/.test(name));
  return type && isJsonObject(content[type]) ? content[type].schema : undefined;
};

const byName = (a: { in: string; name: string }, b: { in: string; name: string }): number =>
  `${a.in} ${a.name}`.localeCompare(`${b.in} ${b.name}`);

/** What the round trip compares of a (dereferenced) document, by `METHOD /prefix/path`. */
function describeOperations(api: JsonObject, prefix = ''): Map<string, Operation> {
  const swagger = api.swagger === '2.0';
  const operations = new Map<string, Operation>();
  for (const [path, item] of Object.entries(api.paths as Record<string, JsonObject>)) {
    for (const method of METHODS) {
      const operation = item[method] as JsonObject | undefined;
      if (!operation) continue;
      const merged = new Map<string, JsonObject>();
      for (const parameter of [
        ...((item.parameters as JsonObject[]) ?? []),
        ...((operation.parameters as JsonObject[]) ?? []),
      ]) {
        merged.set(`${String(parameter.in)} ${String(parameter.name)}`, parameter);
      }
      const parameters = [...merged.values()]
        .filter((parameter) => ['path', 'query', 'header'].includes(String(parameter.in)))
        .filter(
          (parameter) => !(parameter.in === 'header' && IGNORED_HEADERS.includes(String(parameter.name).toLowerCase())),
        )
        .map((parameter) => ({
          name: String(parameter.name),
          in: String(parameter.in),
          required: parameter.in === 'path' || parameter.required === true,
          type: swagger ? parameter.type : (parameter.schema as JsonObject).type,
        }))
        .sort(byName);
      const body = [...merged.values()].find((parameter) => parameter.in === 'body');
      const requestSchema = swagger
        ? body?.schema
        : jsonSchemaOf((operation.requestBody as JsonObject | undefined)?.content);
      const responses: Record<string, unknown> = {};
      for (const [status, response] of Object.entries(operation.responses as Record<string, JsonObject>)) {
        responses[status] = swagger ? response.schema : jsonSchemaOf(response.content);
      }
      operations.set(`${method.toUpperCase()} ${prefix}${path}`, {
        parameters,
        ...(requestSchema !== undefined ? { requestSchema: as31(requestSchema) } : {}),
        responses: as31(responses) as Record<string, unknown>,
      });
    }
  }
  return operations;
}

/** The project's generated tests (`node --test test/`'s, in one process), with the exit code and output. */
const runNodeTest = (cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> =>
  runGeneratedTests(cwd, 'test', env);

const FIXTURE_CASES = [
  {
    file: 'petstore.yaml',
    folder: 'swagger-petstore',
    version: 'OpenAPI 3.0.3',
    prefix: '/v1',
    apiVersion: '1.0.0',
    services: ['/monitoring/isAlive', '/pets', '/pets/pet', '/pets/pet/photos', '/store/inventory'],
    styles: {
      '/pets': 'COLLECTION',
      '/pets/pet': 'RESOURCE',
      '/pets/pet/photos': 'COLLECTION',
      '/store/inventory': 'RESOURCE',
    },
    warnings: [
      'GET /pets: the header parameter Accept left out (OpenAPI ignores Accept as a parameter)',
      'PATCH /pets/{petId} left out: the project format has GET, PUT, POST and DELETE only',
      'PUT /pets/{petId}: the request body as application/xml left out (only JSON bodies are imported)',
      'DELETE /pets/{petId}: the cookie parameter session left out (the project format has no cookie parameters)',
      'POST /pets/{petId}/photos: the request body as multipart/form-data left out (only JSON bodies are imported)',
    ],
    tests: 9,
  },
  {
    file: 'petstore-swagger.json',
    folder: 'pet-shop-swagger-2.0',
    version: 'Swagger 2.0',
    prefix: '/api',
    apiVersion: '2.1.0',
    services: ['/monitoring/isAlive', '/pets', '/pets/pet', '/pets/pet/avatar'],
    styles: { '/pets': 'COLLECTION', '/pets/pet': 'RESOURCE', '/pets/pet/avatar': 'OPERATION' },
    warnings: [
      'OPTIONS /pets/{id}/avatar left out: the project format has GET, PUT, POST and DELETE only',
      // Swagger 2's form parameters are the request body in the form types it consumes, as OpenAPI 3 writes them.
      'POST /pets/{id}/avatar: the request body as multipart/form-data left out (only JSON bodies are imported)',
    ],
    tests: 6,
  },
  {
    file: 'library-3.1.yaml',
    folder: 'library',
    version: 'OpenAPI 3.1.0',
    prefix: '',
    apiVersion: '2024.1',
    // The document describes GET /monitoring/isAlive: it replaces the one rest-tool create adds.
    services: ['/books', '/books/book', '/categories', '/authors/author/books', '/monitoring/isAlive'],
    styles: { '/books': 'COLLECTION', '/books/book': 'RESOURCE', '/categories': 'COLLECTION' },
    warnings: ['GET /monitoring/isAlive is described here: it replaces the monitoring service rest-tool create adds'],
    tests: 8,
  },
];

describe.each(FIXTURE_CASES)('rest-tool import-oas $file', (fixture) => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let project: string;
  let imported: Awaited<ReturnType<typeof runTool>>;
  beforeAll(async () => {
    temp = await makeTempDir();
    imported = await runTool(temp.dir, ['import-oas', join(FIXTURES, fixture.file)]);
    project = join(temp.dir, fixture.folder);
  });
  afterAll(() => temp.remove());

  it('makes a project named after info.title, with a summary on stdout and a warning for what it left out', async () => {
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(
      new RegExp(
        `^imported .*${fixture.file.replace(/\./g, '\\.')} \\(${fixture.version}\\) into ${fixture.folder}: \\d+ services, \\d+ methods`,
      ),
    );
    for (const warning of fixture.warnings) {
      expect(imported.stderr).toContain(`rest-tool: warning: ${join(FIXTURES, fixture.file)}: ${warning}\n`);
    }
    const config = parse(await readFile(join(project, 'config.yml'), 'utf8')) as JsonObject;
    expect(config).toMatchObject({
      apiVersion: fixture.apiVersion,
      serviceUrlPrefix: fixture.prefix,
      baseUrl: `http://localhost:3007${fixture.prefix}`,
      services: fixture.services,
    });
    for (const [entry, style] of Object.entries(fixture.styles)) {
      const descriptor = parse(await readFile(join(project, 'services', entry, 'service.yml'), 'utf8')) as JsonObject;
      expect({ entry, style: descriptor.style }).toEqual({ entry, style });
    }
    // What `rest-tool create` writes is there too.
    expect(Object.keys(await snapshotTree(project))).toEqual(
      expect.arrayContaining(['server/server', 'server/config.yml', 'server/api.js', 'templates/services/', 'test/']),
    );
  });

  it('passes rest-tool validate', async () => {
    const result = await runTool(project, ['validate']);
    expect(result).toMatchObject({ code: 0, stdout: `the project is valid: ${fixture.services.length} services\n` });
  });

  it('exports (export-oas) the same operations, parameters, request and response schemas as the original', async () => {
    const exported = await runTool(project, ['export-oas', '-o', 'api.json']);
    expect(exported.code).toBe(0);
    const original = (await SwaggerParser.dereference(join(FIXTURES, fixture.file))) as unknown as JsonObject;
    const roundTrip = (await SwaggerParser.dereference(join(project, 'api.json'))) as unknown as JsonObject;
    const expected = describeOperations(original, fixture.prefix);
    const actual = describeOperations(roundTrip);
    // The gateway loads the export (the official schema validation included), every operation of it.
    expect(await loadApi(join(project, 'api.json'))).toHaveLength(actual.size);
    // The monitoring service of `rest-tool create` is the one operation the original may not have.
    if (!expected.has(`GET ${fixture.prefix}/monitoring/isAlive`))
      actual.delete(`GET ${fixture.prefix}/monitoring/isAlive`);
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, operation] of expected) expect({ key, ...actual.get(key) }).toEqual({ key, ...operation });
  });

  it('writes self-contained JSON Schema 2020-12 files that compile', async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const files: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) await walk(join(dir, entry.name));
        else if (entry.name.endsWith('Schema.json')) files.push(join(dir, entry.name));
      }
    };
    await walk(join(project, 'services'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      expect(text).not.toMatch(/"\$ref": "#\/(components|definitions)\//);
      const schema = JSON.parse(text) as JsonObject;
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(() => ajv.compile(schema)).not.toThrow();
    }
  });

  it('is served by the mock server (with --validate): the generated tests of every method pass', async () => {
    const tests = await runTool(project, ['test', '-u'], {
      generateTests,
      generateDocs: () => Promise.reject(new Error('not used')),
    });
    expect(tests).toMatchObject({ code: 0, stderr: '' });
    let server: MockServer | undefined;
    try {
      server = await startMockServer({
        projectDir: project,
        port: 0,
        host: '127.0.0.1',
        watch: false,
        validate: true,
        strict: true,
        announce: false,
        logger: createLogger({ name: 'mock', level: 'silent' }),
      });
      const run = await runNodeTest(project, { API_BASE_URL: `${server.url}${fixture.prefix}` });
      // One test per method (the project's own monitoring service's included).
      const count = fixture.tests;
      expect({ code: run.code, output: run.output }).toEqual({
        code: 0,
        output: expect.stringMatching(new RegExp(`# pass ${count}\\n`)),
      });
    } finally {
      await server?.close();
    }
  });
});

describe('rest-tool import-oas: the mocks and schemas of petstore.yaml', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let project: string;
  let server: MockServer;
  beforeAll(async () => {
    temp = await makeTempDir();
    await runTool(temp.dir, ['import-oas', join(FIXTURES, 'petstore.yaml'), 'pets']);
    project = join(temp.dir, 'pets');
    server = await startMockServer({
      projectDir: project,
      port: 0,
      host: '127.0.0.1',
      watch: false,
      validate: true,
      announce: false,
      logger: createLogger({ name: 'mock', level: 'silent' }),
    });
  });
  afterAll(async () => {
    await server.close();
    await temp.remove();
  });
  const read = async (file: string): Promise<unknown> =>
    JSON.parse(await readFile(join(project, 'services', file), 'utf8'));

  it('answers with the first of `examples`, else `example`, else a body built from the schema', async () => {
    const headers = { 'X-Request-Id': 'r1' };
    const list = await fetch(`${server.url}/v1/pets`, { headers });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-next')).toBe('/v1/pets?page=2');
    expect(await list.json()).toEqual([
      { id: 1, name: 'Tom', tag: 'cat' },
      { id: 2, name: 'Jerry', tag: null },
    ]);
    const one = await fetch(`${server.url}/v1/pets/1`);
    expect(await one.json()).toEqual({ id: 1, name: 'Tom', tag: 'cat' });
    const missing = await fetch(`${server.url}/v1/pets/1`, { headers: { 'X-Mock-Response': '404' } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ code: 404, message: 'no pet 42' });
    expect(await (await fetch(`${server.url}/v1/pets/1/photos`)).json()).toEqual([
      { id: 0, url: 'https://example.com/', takenAt: '2024-01-01T00:00:00Z' },
    ]);
    // Files are pretty-printed JSON.
    expect(await readFile(join(project, 'services/pets/pet/getResource-responseBody.json'), 'utf8')).toBe(
      '{\n  "id": 1,\n  "name": "Tom",\n  "tag": "cat"\n}\n',
    );
  });

  it('checks requests against the imported parameters and request schema (--validate)', async () => {
    const noHeader = await fetch(`${server.url}/v1/pets`);
    expect(noHeader.status).toBe(400);
    expect(JSON.stringify(await noHeader.json())).toContain('header.x-request-id');
    const badBody = await fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ tag: 'no name' }),
    });
    expect(badBody.status).toBe(400);
    const created = await fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', tag: null }),
    });
    expect(created.status).toBe(201);
  });

  it('maps parameters, summaries, notes and responses into service.yml', async () => {
    const descriptor = parse(await readFile(join(project, 'services/pets/service.yml'), 'utf8')) as JsonObject;
    expect(descriptor).toMatchObject({ name: 'Pets', style: 'COLLECTION', uriTemplate: '/pets' });
    const get = (descriptor.methods as Record<string, JsonObject>).GET;
    expect(get).toMatchObject({
      summary: 'List all pets',
      notes: 'Answers the pets, a page at a time.',
      request: {
        parameters: [
          {
            name: 'limit',
            kind: 'QUERY',
            required: false,
            type: 'integer',
            summary: 'How many items to return at one time (max 100)',
            default: 20,
          },
          {
            name: 'X-Request-Id',
            kind: 'HEADER',
            required: true,
            type: 'string',
            summary: 'Correlates the request with the logs',
          },
        ],
      },
    });
    expect((get.responses as JsonObject[]).map((response) => [response.name, response.statusCode])).toEqual([
      ['OK', 200],
      ['default', 'default'],
    ]);
    const post = (descriptor.methods as Record<string, JsonObject>).POST;
    expect(post.request).toMatchObject({
      description: 'The pet to add',
      mockBody: 'postCollection-requestBody.json',
      validationSchema: 'postCollection-requestSchema.json',
    });
    expect(await read('pets/postCollection-requestBody.json')).toEqual({ name: 'Rex', tag: 'dog' });
    expect(await read('pets/postCollection-requestSchema.json')).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1 }, tag: { type: ['string', 'null'] } },
    });
  });
});

describe('rest-tool import-oas: cycles, styles and where it writes', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeEach(async () => {
    temp = await makeTempDir();
  });
  afterEach(() => temp.remove());

  it('writes a schema on a cycle with $defs, and export-oas moves them to components', async () => {
    await runTool(temp.dir, ['import-oas', join(FIXTURES, 'library-3.1.yaml'), 'lib']);
    const schema = JSON.parse(
      await readFile(join(temp.dir, 'lib/services/categories/getCollection-responseSchema.json'), 'utf8'),
    ) as JsonObject;
    expect(schema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      items: { $ref: '#/$defs/Category' },
      $defs: {
        Category: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Category' } },
          },
        },
      },
    });
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(schema);
    expect(validate([{ name: 'a', children: [{ name: 'b', children: [] }] }])).toBe(true);
    expect(validate([{ name: 'a', children: [{ children: [] }] }])).toBe(false);
    await runTool(join(temp.dir, 'lib'), ['export-oas', '-o', 'api.yml']);
    const api = parse(await readFile(join(temp.dir, 'lib/api.yml'), 'utf8')) as JsonObject;
    expect((api.components as JsonObject).schemas).toEqual({
      Category: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/components/schemas/Category' } },
        },
      },
    });
  });

  it('takes the style from --style over x-restbus-style and the guess', async () => {
    const result = await runTool(temp.dir, [
      'import-oas',
      join(FIXTURES, 'petstore.yaml'),
      'p',
      '--style',
      '/store/inventory=operation',
      '--style',
      '/pets/{petId}/photos=RESOURCE',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  services/store/inventory (OPERATION): GET /store/inventory\n');
    expect(result.stdout).toContain('  services/pets/pet/photos (RESOURCE): GET, POST /pets/{petId}/photos\n');
    const files = await readdir(join(temp.dir, 'p/services/pets/pet/photos'));
    expect(files).toContain('getResource-responseBody.json');
  });

  it('refuses a --style that is not <path>=<STYLE> (exit 2) or names no path of the file (exit 1)', async () => {
    const bad = await runTool(temp.dir, ['import-oas', join(FIXTURES, 'petstore.yaml'), '--style', '/pets=LIST']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('must be <path>=<STYLE>');
    const unknown = await runTool(temp.dir, [
      'import-oas',
      join(FIXTURES, 'petstore.yaml'),
      '--style',
      '/petz=RESOURCE',
    ]);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(
      /^rest-tool: --style \/petz: .*petstore\.yaml has no path \/petz; nothing was written\n$/,
    );
    expect(await snapshotTree(temp.dir)).toEqual({});
  });

  it('writes into an empty folder, refuses a folder that is not empty or a file, and overwrites nothing', async () => {
    await mkdir(join(temp.dir, 'empty'));
    expect((await runTool(temp.dir, ['import-oas', join(FIXTURES, 'petstore.yaml'), 'empty'])).code).toBe(0);
    expect(await readdir(join(temp.dir, 'empty'))).toContain('config.yml');

    await mkdir(join(temp.dir, 'full'));
    await writeFile(join(temp.dir, 'full', 'config.yml'), 'mine\n');
    await writeFile(join(temp.dir, 'file'), 'mine\n');
    const before = await snapshotTree(temp.dir);
    const full = await runTool(temp.dir, ['import-oas', join(FIXTURES, 'petstore.yaml'), 'full']);
    expect(full).toEqual({
      code: 1,
      stdout: '',
      stderr: 'rest-tool: full exists and is not empty; nothing was written\n',
    });
    const file = await runTool(temp.dir, ['import-oas', join(FIXTURES, 'petstore.yaml'), 'file']);
    expect(file.stderr).toBe('rest-tool: file exists and is not a folder; nothing was written\n');
    const again = await runTool(temp.dir, ['import-oas', join(FIXTURES, 'petstore.yaml'), 'empty']);
    expect(again.code).toBe(1);
    const outside = await runTool(temp.dir, ['import-oas', join(FIXTURES, 'petstore.yaml'), '../elsewhere']);
    expect(outside.stderr).toMatch(/must name a new folder inside the current one; nothing was written/);
    // No temporary folder left behind, nothing changed.
    expect(await snapshotTree(temp.dir)).toEqual(before);
  });

  it('exits 1 with one line naming the file, and no stack, for a file it cannot read or that is not OpenAPI', async () => {
    await writeFile(join(temp.dir, 'broken.yaml'), 'openapi: 3.0.3\ninfo: [\n');
    await writeFile(join(temp.dir, 'invalid.yaml'), 'openapi: 3.0.3\ninfo: {title: T}\npaths: {}\n');
    await writeFile(join(temp.dir, 'other.json'), '{"name": "not an API"}\n');
    await writeFile(
      join(temp.dir, 'dangling.yaml'),
      'openapi: 3.0.3\ninfo: {title: T, version: "1"}\npaths:\n  /a:\n    get:\n      responses:\n        "200": {$ref: "#/components/responses/Nope"}\n',
    );
    const before = await snapshotTree(temp.dir);
    const cases: Array<[string, RegExp]> = [
      ['missing.yaml', /^rest-tool: missing\.yaml: cannot read the API description: no such file\n$/],
      ['broken.yaml', /^rest-tool: broken\.yaml:\d+: not valid YAML or JSON: .+\n$/],
      [
        'invalid.yaml',
        /^rest-tool: invalid\.yaml:2: info: does not follow the OpenAPI 3\.0 schema: must have required property 'version'\n$/,
      ],
      [
        'other.json',
        /^rest-tool: other\.json:1: not an API description restbus reads: it needs openapi: 3\.0\.x or 3\.1\.x, or swagger: "2\.0"\n$/,
      ],
      [
        'dangling.yaml',
        /^rest-tool: dangling\.yaml:7: paths\.\/a\.get\.responses\.200: cannot resolve a \$ref: .*#\/components\/responses\/Nope.*\n$/,
      ],
    ];
    for (const [file, message] of cases) {
      const result = await runTool(temp.dir, ['import-oas', file, 'out']);
      expect({ file, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        file,
        code: 1,
        stdout: '',
        stderr: expect.stringMatching(message),
      });
    }
    // As a real process too: one line on stderr, no stack trace.
    const process = await runToolProcess(temp.dir, ['import-oas', 'invalid.yaml']);
    expect(process.code).toBe(1);
    expect(process.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(process.stderr).not.toMatch(/\n\s+at /);
    expect(await snapshotTree(temp.dir)).toEqual(before);
  });
});
