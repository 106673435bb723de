import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { access, chmod, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { serveContract, type Contract, type ServiceContext, type JsonObject } from '@restbus/infra';
import { recordHostileCounts } from '@restbus/infra/testing';
import ts from 'typescript';
import { stringify } from 'yaml';
import { generateService } from '../generate-service';
import { toPropertyKey } from '../to-property-key';
import { toObjectKey, toSourceLiteral, toStringLiteral } from '../to-source-literal';

// Every text of a hostile document carries MARK: found anywhere in generated code but inside a string literal, a
// text of the document got out of its literal. SECRET is in a file outside the document's folder.
const MARK = 'PWNED';
const SECRET = 'SECRETOUTSIDE';
const BREAKOUTS = [
  `*/ process.exit(7) /* ${MARK}`,
  `\n${MARK} = 1;`,
  `\u2028${MARK}\u2029`,
  `\`${MARK}\${process.exit(7)}\``,
  `"'${MARK}'"`,
  `$(touch ${MARK})`,
];

const root = resolve(__dirname, '../../../..');
let scratch: string;
let fetches = 0;
let server: Server;
let url: string;

beforeAll(async () => {
  // Inside the repository, so that `@restbus/infra` resolves for the compiler as it does for a workspace service.
  await mkdir(join(root, '.scratch'), { recursive: true });
  scratch = await mkdtemp(join(root, '.scratch', 'hostile-generate-'));
  await mkdir(join(scratch, 'outside'));
  await writeFile(
    join(scratch, 'outside/secret.yml'),
    stringify({ type: 'object', description: SECRET, properties: { [SECRET]: { type: 'string', enum: [SECRET] } } }),
  );
  await writeFile(join(scratch, 'outside/secret.txt'), SECRET);
  server = createServer((_request, response) => {
    fetches += 1;
    response.setHeader('content-type', 'application/yaml');
    response.end(stringify({ type: 'object', properties: { FETCHED: { type: 'string' } } }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  await rm(scratch, { recursive: true, force: true });
});

/** A small valid OpenAPI 3.0 document with one POST operation whose JSON body has `body` as its schema. */
function openapi(body: JsonObject = { type: 'object' }, extra: JsonObject = {}): JsonObject {
  return {
    openapi: '3.0.3',
    info: { title: 'hostile', version: '1.0.0' },
    paths: {
      '/things': {
        post: {
          operationId: 'addThing',
          requestBody: { required: true, content: { 'application/json': { schema: body } } },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
    ...extra,
  };
}

/** One operation per hostile operationId. */
function withOperationIds(ids: string[]): JsonObject {
  const paths: JsonObject = {};
  ids.forEach((id, at) => {
    paths[`/op${at}`] = { get: { operationId: id, responses: { '200': { description: 'ok' } } } };
  });
  return { openapi: '3.0.3', info: { title: 't', version: '1' }, paths };
}

const cyclic = (name: string): JsonObject =>
  openapi(
    { $ref: `#/components/schemas/${name}` },
    {
      components: {
        schemas: {
          [name]: {
            type: 'object',
            required: ['id'],
            properties: { id: { type: 'integer' }, next: { $ref: `#/components/schemas/${name}` } },
          },
        },
      },
    },
  );

interface HostileCase {
  name: string;
  /** The document's file name in its own folder. */
  file?: string;
  /** The document, written as JSON (a `.json` name) or YAML. */
  document: JsonObject | (() => JsonObject);
  /** Files beside the document (relative path → text), or a symbolic link (`->target`). */
  beside?: Record<string, string>;
  /** What the generator must do: refuse the document, or generate from it. Absent: either, as long as nothing leaks. */
  outcome?: 'refused' | 'generated';
  /** Checks of a generated folder, beyond those every case gets. */
  check?: (dir: string) => Promise<void>;
}

/** The contract object of a generated contract.ts, evaluated as the service would see it. */
async function loadContract(dir: string): Promise<JsonObject> {
  const text = await readFile(join(dir, 'src/generated/contract.ts'), 'utf8');
  const source = ts.transpileModule(text, {
    // The generated tsconfig's target: an older one lowers a computed key to an assignment, which sets the prototype.
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const exports: JsonObject = {};
  runInNewContext(source, { exports, require: () => ({}) });
  return exports.contract as JsonObject;
}

const bodySchema = (contract: JsonObject, at = 0): JsonObject =>
  ((contract.operations as JsonObject[])[at].requestBody as { content: Record<string, { schema: JsonObject }> })
    .content['application/json'].schema;

const cases: HostileCase[] = [
  // File names: they reach comments, package.json's generate script and the next steps.
  ...[
    '$(touch MARKER)PWNED.yml',
    '`touch MARKER`PWNED.yml',
    "a'; touch MARKER; 'PWNED.yml",
    'a\nPWNED*.yml',
    '-rfPWNED.yml',
  ].map((file): HostileCase => ({
    name: `a file named ${JSON.stringify(file)}`,
    file,
    document: openapi(),
    outcome: 'generated',
  })),
  {
    name: 'a file name with U+2028 and ${}',
    file: 'a\u2028${b}PWNED\u2029.yml',
    document: openapi(),
    outcome: 'generated',
  },
  // Texts of the document.
  {
    name: 'a title, summary and description that break out of comments and strings',
    document: () => {
      const document = openapi({ type: 'object', description: BREAKOUTS.join(' ') });
      document.info = { title: BREAKOUTS.join(' '), version: BREAKOUTS[0], description: BREAKOUTS.join(' ') };
      const post = (document.paths as JsonObject)['/things'] as { post: JsonObject };
      post.post.summary = BREAKOUTS.join(' ');
      post.post.description = BREAKOUTS.join(' ');
      return document;
    },
    outcome: 'generated',
  },
  ...BREAKOUTS.map((text, at): HostileCase => ({
    name: `an operationId that breaks out (${at})`,
    document: withOperationIds([`op${MARK}${at}${text}`]),
  })),
  {
    name: 'operationIds that are identifiers',
    document: withOperationIds([`${MARK}`, `x${MARK}y`]),
    outcome: 'generated',
  },
  {
    name: 'operationIds named after Object.prototype',
    document: withOperationIds(['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf']),
    outcome: 'generated',
    check: async (dir) => {
      const handlers = await readFile(join(dir, 'src/handlers.ts'), 'utf8');
      expect(findProtoKeys(handlers)).toEqual([]);
    },
  },
  {
    name: 'property names and enum values that break out',
    document: openapi({
      type: 'object',
      required: BREAKOUTS.slice(0, 2),
      properties: Object.fromEntries(BREAKOUTS.map((text) => [text, { type: 'string', enum: BREAKOUTS }])),
    }),
    outcome: 'generated',
  },
  {
    name: 'defaults and examples that break out',
    document: openapi({
      type: 'object',
      properties: { a: { type: 'string', default: BREAKOUTS.join(''), example: BREAKOUTS.join('') } },
      example: { a: BREAKOUTS.join('') },
    }),
    outcome: 'generated',
  },
  {
    name: 'a body property named __proto__',
    document: openapi({
      type: 'object',
      required: ['__proto__'],
      properties: { ['__proto__']: { type: 'string', maxLength: 3 } },
    }),
    outcome: 'generated',
    check: async (dir) => {
      const schema = bodySchema(await loadContract(dir));
      expect(Object.hasOwn(schema.properties as JsonObject, '__proto__')).toBe(true);
      expect(Object.keys(Object.getPrototypeOf(schema.properties) as object)).toEqual([]);
      // The schema checker skips a property named __proto__: the service refuses to start rather than not check it.
      const startup = serveContract({
        contract: (await loadContract(dir)) as unknown as Contract,
        createHandlers: () => ({ addThing: () => ({ status: 204 }) }),
      });
      await expect(
        startup({ config: { topicPrefix: 'easer' }, register: () => undefined } as unknown as ServiceContext<object>),
      ).rejects.toThrow(/the operation "addThing" cannot be checked: .*"__proto__"/);
    },
  },
  ...['__proto__', 'constructor', 'hasOwnProperty'].map((name): HostileCase => ({
    name: `a cyclic schema named ${name}`,
    document: cyclic(name),
    // openapi-typescript fails on a schema named hasOwnProperty: refused (OPENAPI_INVALID), never half written.
    outcome: name === 'hasOwnProperty' ? 'refused' : 'generated',
    check: async (dir) => {
      const contract = await loadContract(dir);
      const schemas = ((contract.schemaRoot as JsonObject).components as JsonObject).schemas as JsonObject;
      expect(Object.hasOwn(schemas, name)).toBe(true);
      expect((schemas[name] as JsonObject).required).toEqual(['id']);
    },
  })),
  {
    name: 'a query parameter named __proto__',
    document: () => {
      const document = withOperationIds(['find']);
      ((document.paths as JsonObject)['/op0'] as { get: JsonObject }).get.parameters = [
        { name: '__proto__', in: 'query', required: true, schema: { type: 'string' } },
      ];
      return document;
    },
    check: async (dir) => {
      expect(findProtoKeys(await readFile(join(dir, 'src/handlers.test.ts'), 'utf8'))).toEqual([]);
    },
  },
  // Paths and subjects the gateway refuses.
  {
    name: 'a path that makes a wildcard subject',
    document: {
      ...withOperationIds([]),
      paths: { '/a/*/b': { get: { operationId: 'x', responses: { '200': { description: 'ok' } } } } },
    },
    outcome: 'refused',
  },
  {
    name: 'an x-restbus-subject that is a wildcard',
    document: () => {
      const document = withOperationIds(['x']);
      ((document.paths as JsonObject)['/op0'] as { get: JsonObject }).get['x-restbus-subject'] = 'easer.>';
      return document;
    },
    outcome: 'refused',
  },
  {
    name: 'a path with a line separator',
    document: {
      ...withOperationIds([]),
      paths: { [`/a\u2028${MARK}`]: { get: { responses: { '200': { description: 'ok' } } } } },
    },
  },
  {
    name: 'a path that closes a comment',
    document: {
      ...withOperationIds([]),
      paths: { [`/a*/${MARK}/*`]: { get: { responses: { '200': { description: 'ok' } } } } },
    },
  },
  // Files outside the folder, and URLs.
  {
    name: 'a $ref to a file outside the folder',
    document: () => openapi({ $ref: '../../outside/secret.yml' }),
    outcome: 'refused',
  },
  {
    name: 'a $ref to an absolute path outside',
    document: () => openapi({ $ref: join(scratch, 'outside/secret.yml') }),
    outcome: 'refused',
  },
  {
    name: 'a $ref through a symbolic link to outside',
    document: () => openapi({ $ref: 'linked.yml' }),
    beside: { 'linked.yml': '->../../outside/secret.yml' },
    outcome: 'refused',
  },
  { name: 'a $ref to a URL', document: () => openapi({ $ref: `${url}/schema.yml` }), outcome: 'refused' },
  {
    name: 'an example externalValue outside the folder and at a URL',
    document: () => {
      const document = openapi();
      const media = ((document.paths as JsonObject)['/things'] as { post: { requestBody: { content: JsonObject } } })
        .post.requestBody.content['application/json'] as JsonObject;
      media.examples = {
        a: { externalValue: '../../outside/secret.txt' },
        b: { externalValue: `${url}/example.json` },
      };
      return document;
    },
  },
  ...[
    () => `${url}/mapped.yml`,
    () => join(scratch, 'outside/secret.yml'),
    () => '../../outside/secret.yml',
    () => 'Cat',
  ].map((target, at): HostileCase => ({
    name: `a discriminator mapping to somewhere else (${at})`,
    document: () =>
      openapi(
        { $ref: '#/components/schemas/Pet' },
        {
          components: {
            schemas: {
              Pet: {
                type: 'object',
                required: ['kind'],
                properties: { kind: { type: 'string' } },
                discriminator: { propertyName: 'kind', mapping: { cat: target(), dog: '#/components/schemas/Dog' } },
              },
              Cat: { allOf: [{ $ref: '#/components/schemas/Pet' }] },
              Dog: { allOf: [{ $ref: '#/components/schemas/Pet' }] },
            },
          },
        },
      ),
  })),
  {
    name: 'a 3.1 schema with $id, $schema and $dynamicRef at URLs',
    document: () => ({
      ...openapi({
        $id: `${url}/base/`,
        $schema: `${url}/meta`,
        type: 'object',
        properties: { a: { $dynamicRef: `${url}/dyn#x` } },
      }),
      openapi: '3.1.0',
    }),
  },
  {
    name: 'an extension holding a $ref to a URL',
    document: () =>
      openapi({ type: 'object', 'x-thing': { $ref: `${url}/x.yml` } }, { 'x-top': { $ref: `${url}/y.yml` } }),
  },
  {
    name: 'a Swagger 2.0 document with a $ref to a URL and one outside',
    document: () => ({
      swagger: '2.0',
      info: { title: 't', version: '1' },
      paths: {
        '/a': {
          post: {
            parameters: [{ in: 'body', name: 'b', schema: { $ref: `${url}/s.yml` } }],
            responses: { '200': { description: 'ok', schema: { $ref: '../../outside/secret.yml' } } },
          },
        },
      },
    }),
    outcome: 'refused',
  },
];

/** Object-literal keys `__proto__` written so that they set the prototype: `{ __proto__: x }`, `{ "__proto__": x }`. */
function findProtoKeys(text: string): string[] {
  const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) &&
      (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) &&
      node.name.text === '__proto__'
    ) {
      found.push(node.getText(file).slice(0, 60));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * What of a TypeScript file's text is outside its string literals (comments, identifiers, template literals,
 * everything): where a document's text must never be. Also its syntax errors.
 */
function outsideStringLiterals(text: string, name: string): { outside: string; syntaxErrors: string[] } {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const ranges: Array<[number, number]> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node)) ranges.push([node.getStart(file), node.end]);
    else ts.forEachChild(node, visit);
  };
  visit(file);
  let outside = '';
  let at = 0;
  for (const [start, end] of ranges) {
    outside += text.slice(at, start);
    at = end;
  }
  outside += text.slice(at);
  const diagnostics = (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  return { outside, syntaxErrors: diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')) };
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

let rawTexts = 0;
let filesOutside = 0;
let commandsRun = 0;
let generatedCount = 0;
let fuzzed = 0;
const generatedDirs: string[] = [];

describe('rest-tool generate-service on hostile documents', () => {
  it.each(cases.map((hostile, at) => [hostile.name, hostile, at] as const))(
    'writes only what the generator means for %s: document text only inside string literals, nothing fetched, run or read outside',
    async (_name, hostile, at) => {
      const docs = join(scratch, 'docs', String(at));
      const dir = join(scratch, 'out', String(at));
      await mkdir(docs, { recursive: true });
      for (const [path, text] of Object.entries(hostile.beside ?? {})) {
        if (text.startsWith('->')) await symlink(text.slice(2), join(docs, path));
        else await writeFile(join(docs, path), text);
      }
      const file = join(docs, (hostile.file ?? 'api.yml').replace('MARKER', 'command-ran'));
      const document = typeof hostile.document === 'function' ? hostile.document() : hostile.document;
      await writeFile(file, stringify(document));
      const fetchesBefore = fetches;
      const outcome = await generateService({ cwd: docs, file: file.slice(docs.length + 1), folder: dir }).then(
        () => 'generated' as const,
        (err: unknown) => {
          expect((err as { code?: string }).code).toBe('OPENAPI_INVALID');
          return 'refused' as const;
        },
      );
      expect(fetches - fetchesBefore).toBe(0);
      if (hostile.outcome) expect(outcome).toBe(hostile.outcome);
      if (outcome === 'refused') return;
      generatedCount += 1;
      generatedDirs.push(dir);

      for (const path of await listFiles(dir)) {
        const text = await readFile(path, 'utf8');
        if (text.includes(SECRET)) filesOutside += 1;
        expect(text).not.toContain(SECRET);
        if (path.endsWith('.ts')) {
          const { outside, syntaxErrors } = outsideStringLiterals(text, path);
          expect(syntaxErrors).toEqual([]);
          if (outside.includes(MARK) || outside.includes('\u2028') || outside.includes('\u2029')) rawTexts += 1;
          expect(outside).not.toContain(MARK);
          expect(outside).not.toMatch(/[\u2028\u2029]/);
          expect(findProtoKeys(text)).toEqual([]);
        }
      }
      // package.json's scripts run in a shell: no text of the document or its name is in them.
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      };
      for (const script of Object.values(manifest.scripts)) {
        expect(script).not.toContain(MARK);
        if (hostile.file) expect(script).not.toContain(hostile.file.split('.')[0]);
      }
      await hostile.check?.(dir);
    },
  );

  it('runs `npm run generate` of a service generated from a file named `$(touch …)` without running the name, handing the file name over as it is', async () => {
    const docs = join(scratch, 'docs', 'npm');
    const dir = join(scratch, 'out', 'npm');
    await mkdir(docs, { recursive: true });
    const file = join(docs, "$(touch command-ran) `touch command-ran` '; touch command-ran; '.yml");
    await writeFile(file, stringify(openapi()));
    await generateService({ cwd: docs, file: file.slice(docs.length + 1), folder: dir });
    // A rest-tool that only writes down its arguments, where npm looks first: the service's node_modules/.bin.
    const bin = join(dir, 'node_modules/.bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'rest-tool'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${join(scratch, 'args')}"\n`);
    await chmod(join(bin, 'rest-tool'), 0o755);
    await promisify(execFile)('npm', ['run', 'generate', '--silent'], { cwd: dir });
    const ran = (await exists(join(dir, 'command-ran'))) || (await exists(join(docs, 'command-ran')));
    if (ran) commandsRun += 1;
    expect(ran).toBe(false);
    const args = (await readFile(join(scratch, 'args'), 'utf8')).split('\n');
    expect(args).toContain(`../../docs/npm/${file.slice(docs.length + 1)}`);
  });

  it('writes code that compiles under strict for every hostile document it generated from', () => {
    // One program over every generated folder (their tsconfig.json are the same): one type check, not one each.
    const config = ts.getParsedCommandLineOfConfigFile(
      join(generatedDirs[0], 'tsconfig.json'),
      { noEmit: true },
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: () => undefined,
      },
    );
    const rootNames = generatedDirs.flatMap((dir) =>
      ts.sys.readDirectory(join(dir, 'src'), ['.ts']).filter((file) => !file.includes('node_modules')),
    );
    const { rootDir: _rootDir, outDir: _outDir, ...options } = config!.options;
    const program = ts.createProgram({ rootNames, options });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map(
        ({ file, messageText }) =>
          `${file?.fileName.slice(scratch.length)}: ${ts.flattenDiagnosticMessageText(messageText, '\n')}`,
      );
    expect(errors).toEqual([]);
  });
});

// What breaks out of a literal, a comment or a shell word, mixed into every generated string.
const HOSTILE = [
  '\u2028',
  '\u2029',
  '\n',
  '\r',
  '"',
  "'",
  '`',
  '${',
  '}',
  '*/',
  '/*',
  '//',
  '\\',
  '$(',
  ';',
  '|',
  '&',
  '__proto__',
  'constructor',
  '\u0000',
  '\ud800',
  '🙂',
];
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'binary' })), { maxLength: 8 })
  .map((parts) => parts.join(''));
const hostileKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', 'toString'), hostileText);
const hostileJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileText,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .uniqueArray(fc.tuple(hostileKey, tie('value')), { maxLength: 4, selector: ([key]) => key })
      .map((entries) => JSON.parse(JSON.stringify(Object.fromEntries(entries))) as unknown),
  ),
})).value;

/** The TypeScript parser's reading of `expression`: its syntax errors, and the text of the string literal it is. */
function parse(expression: string): { errors: number; text?: string } {
  const file = ts.createSourceFile('x.ts', `const x = ${expression};`, ts.ScriptTarget.ES2022, true);
  const errors = (file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length;
  const initializer = (file.statements[0] as ts.VariableStatement).declarationList.declarations[0].initializer;
  return { errors, text: initializer && ts.isStringLiteral(initializer) ? initializer.text : undefined };
}

describe("the generator's escaping, fuzzed with hostile strings", () => {
  it('writes any string as a one-line string literal the TypeScript parser reads back as the same string', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        fuzzed += 1;
        const literal = toStringLiteral(text);
        expect(literal).not.toMatch(/[\n\r\u2028\u2029]/);
        expect(parse(literal)).toEqual({ errors: 0, text });
        expect(runInNewContext(literal)).toBe(text);
      }),
      { numRuns: 400 },
    );
  });

  it('writes any key as a type member key and an object key that are string literals, __proto__ computed', () => {
    fc.assert(
      fc.property(hostileKey, (key) => {
        fuzzed += 1;
        expect(parse(toPropertyKey(key))).toEqual({ errors: 0, text: key });
        const object = runInNewContext(`({ ${toObjectKey(key)}: 1 })`) as object;
        expect(Object.getOwnPropertyNames(object)).toEqual([key]);
        expect(Object.keys(Object.getPrototypeOf(object) as object)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('writes any JSON value as an expression that evaluates to an equal value, every key its own property', () => {
    fc.assert(
      fc.property(hostileJson, (value) => {
        fuzzed += 1;
        const literal = toSourceLiteral(value);
        expect(parse(literal).errors).toBe(0);
        // Evaluated in another realm: compared as JSON.parse reads the same value there, own keys and order included.
        const evaluated = runInNewContext(`(${literal})`) as unknown;
        const parsed = runInNewContext(`JSON.parse(${JSON.stringify(JSON.stringify(value))})`) as unknown;
        expect(JSON.stringify(evaluated)).toBe(JSON.stringify(parsed));
        expect(findChangedPrototypes(evaluated)).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  /** How many objects in a value have a prototype that is not a plain object's (a `__proto__` key that set it). */
  function findChangedPrototypes(value: unknown): number {
    if (value === null || typeof value !== 'object') return 0;
    const prototype = Object.getPrototypeOf(value) as object;
    const own = Array.isArray(value) ? 0 : Object.keys(prototype).length > 0 ? 1 : 0;
    return own + Object.values(value).reduce((sum: number, item) => sum + findChangedPrototypes(item), 0);
  }
});

afterAll(() => {
  recordHostileCounts('rest-tool generate-service', {
    tried: { documents: cases.length + 1, generated: generatedCount, fuzzed },
    found: { commandsRun, fetches, filesOutside, rawTexts },
  });
});
