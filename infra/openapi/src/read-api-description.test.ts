import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { checkRoutes } from './check-routes';
import { formatDiagnostic, type Diagnostic } from './diagnostic';
import { readApiDescription } from './read-api-description';

describe('readApiDescription()', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'restbus-openapi-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const write = async (name: string, text: string): Promise<string> => {
    const file = join(dir, name);
    await writeFile(file, text);
    return file;
  };

  it('reads a YAML file and the files its $refs name into the typed model, linted by the linter given', async () => {
    await write('person.yml', 'type: object\nproperties:\n  name: {type: string}\n');
    const file = await write(
      'api.yml',
      [
        'openapi: 3.0.3',
        'info: {title: Persons, version: "1"}',
        'paths:',
        '  /persons:',
        '    get:',
        '      responses:',
        '        "200":',
        '          description: ok',
        '          content: {application/json: {schema: {$ref: person.yml}}}',
        '',
      ].join('\n'),
    );
    const linted: string[] = [];
    const lint = async ({ file: linting, text }: { file: string; text: string }): Promise<Diagnostic[]> => {
      linted.push(text.split('\n')[0]);
      return [{ severity: 'warning', file: linting, line: 2, column: 1, path: 'info', message: 'a warning' }];
    };
    const { model, diagnostics } = await readApiDescription(file, { lint, topicPrefix: 'svc' });
    expect(linted).toEqual(['openapi: 3.0.3']);
    expect(diagnostics.map(formatDiagnostic)).toEqual([`${file}:2:1  warning  info: a warning`]);
    expect(model?.operations.map(({ name, subject }) => [name, subject])).toEqual([['getPersons', 'svc.get_/persons']]);
    expect(model?.operations[0].responses[0].content['application/json'].schema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' } },
    });
  });

  it('checks the document against the official schema when asked, each problem an error at its line', async () => {
    const file = await write('invalid.yml', 'openapi: 3.0.3\ninfo: {title: T}\npaths: {}\n');
    expect((await readApiDescription(file)).diagnostics).toEqual([]);
    const { diagnostics } = await readApiDescription(file, { checkSchema: true });
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      `${file}:2:1  error  info: does not follow the OpenAPI 3.0 schema: must have required property 'version'`,
    ]);
  });

  it('refuses a $ref to a URL where it is written, and a file that is no API description', async () => {
    const file = await write(
      'url.yml',
      'swagger: "2.0"\ninfo: {title: T, version: "1"}\npaths:\n  /a:\n    get:\n      responses:\n        "200": {$ref: "http://127.0.0.1:9/r.yml"}\n',
    );
    expect((await readApiDescription(file)).diagnostics.map(formatDiagnostic)).toEqual([
      `${file}:7:9  error  paths./a.get.responses.200: the $ref "http://127.0.0.1:9/r.yml" names a URL: $refs are read only from local files, never fetched`,
    ]);
    const other = await write('other.json', '{"name": "not an API"}');
    const read = await readApiDescription(other);
    expect(read.model).toBeUndefined();
    expect(read.diagnostics.map(formatDiagnostic)).toEqual([
      `${other}:1:1  error  not an API description restbus reads: it needs openapi: 3.0.x or 3.1.x, or swagger: "2.0"`,
    ]);
  });

  it('says which operations cannot be routed over NATS and why (checkRoutes)', async () => {
    const file = await write(
      'routes.yml',
      [
        'openapi: 3.1.0',
        'info: {title: R, version: "1"}',
        'paths:',
        '  /ok: {get: {responses: {"200": {description: ok}}}}',
        '  /a*b: {get: {responses: {"200": {description: ok}}}}',
        '  /files: {get: {x-static: {}, responses: {"200": {description: ok}}}}',
        '',
      ].join('\n'),
    );
    const routes = checkRoutes(await readApiDescription(file));
    expect(routes.operations.map(({ path }) => path)).toEqual(['/ok']);
    expect(routes.diagnostics.map(formatDiagnostic)).toEqual([
      `${file}:5:3  error  paths./a*b: the path contains whitespace or a NATS wildcard character ("*", ">"), which cannot be part of a subject`,
      `${file}:6:18  error  paths./files.get.x-static: needs a contentPath, the folder to serve (relative to --staticContentBasePath)`,
    ]);
  });

  it('refuses an x-restbus-subject that is no NATS subject a call can be sent to, at its line', async () => {
    const file = await write(
      'subjects.yml',
      [
        'openapi: 3.0.3',
        'info: {title: S, version: "1"}',
        'paths:',
        '  /ok: {get: {x-restbus-subject: people.list, responses: {"200": {description: ok}}}}',
        '  /star: {get: {x-restbus-subject: "people.*", responses: {"200": {description: ok}}}}',
        '  /tail: {get: {x-restbus-subject: "people.>", responses: {"200": {description: ok}}}}',
        '  /empty-token: {get: {x-restbus-subject: "people..list", responses: {"200": {description: ok}}}}',
        '  /trailing: {get: {x-restbus-subject: "people.", responses: {"200": {description: ok}}}}',
        '  /space: {get: {x-restbus-subject: "people list", responses: {"200": {description: ok}}}}',
        '  /control: {get: {x-restbus-subject: "people\\u0000list", responses: {"200": {description: ok}}}}',
        '  /blank: {get: {x-restbus-subject: "", responses: {"200": {description: ok}}}}',
        '  /number: {get: {x-restbus-subject: 42, responses: {"200": {description: ok}}}}',
        '',
      ].join('\n'),
    );
    const routes = checkRoutes(await readApiDescription(file, { topicPrefix: 'svc' }));
    expect(routes.operations.map(({ path, subject }) => [path, subject])).toEqual([['/ok', 'people.list']]);
    const because = (path: string, column: number, reason: string) =>
      `${file}:${path}:${column}  error  paths./${reason}`;
    expect(routes.diagnostics.map(formatDiagnostic)).toEqual([
      because(
        '5',
        17,
        'star.get.x-restbus-subject: the subject "people.*" holds a NATS wildcard ("*" or ">"): a call is sent to one subject',
      ),
      because(
        '6',
        17,
        'tail.get.x-restbus-subject: the subject "people.>" holds a NATS wildcard ("*" or ">"): a call is sent to one subject',
      ),
      because(
        '7',
        24,
        'empty-token.get.x-restbus-subject: the subject "people..list" has an empty token (a "." at an end or next to another)',
      ),
      because(
        '8',
        21,
        'trailing.get.x-restbus-subject: the subject "people." has an empty token (a "." at an end or next to another)',
      ),
      because('9', 18, 'space.get.x-restbus-subject: the subject "people list" holds whitespace, which ends a subject'),
      because(
        '10',
        20,
        'control.get.x-restbus-subject: the subject holds the control character \\u0000, which cannot be part of a NATS subject',
      ),
      because(
        '11',
        18,
        'blank.get.x-restbus-subject: must be a NATS subject (a non-empty string such as "people.list")',
      ),
      because(
        '12',
        19,
        'number.get.x-restbus-subject: must be a NATS subject (a non-empty string such as "people.list")',
      ),
    ]);
  });

  it('routes a declared stream and refuses, at the property, one that cannot be served', async () => {
    const events = "responses: {'200': {description: e, content: {text/event-stream: {itemSchema: {type: object}}}}}";
    const id = 'parameters: [{name: id, in: path, required: true, schema: {type: string}}]';
    const file = await write(
      'streams.yml',
      [
        'openapi: 3.2.0',
        'info: {title: S, version: "1"}',
        'paths:',
        `  /ok/{id}: {${id}, get: {x-restbus-stream: {subject: "persons.{id}.events", stream: PERSONS}, ${events}}}`,
        `  /post: {post: {x-restbus-stream: {subject: persons.events}, ${events}}}`,
        "  /json: {get: {x-restbus-stream: {subject: persons.events}, responses: {'200': {description: j, content: {application/json: {schema: {type: object}}}}}}}",
        `  /nosubject: {get: {x-restbus-stream: {stream: PERSONS}, ${events}}}`,
        `  /unknown: {get: {x-restbus-stream: {subject: "persons.{id}"}, ${events}}}`,
        `  /part/{id}: {${id}, get: {x-restbus-stream: {subject: "persons.x{id}"}, ${events}}}`,
        `  /star: {get: {x-restbus-stream: {subject: "persons.*"}, ${events}}}`,
        `  /tail: {get: {x-restbus-stream: {subject: "persons.>"}, ${events}}}`,
        `  /empty: {get: {x-restbus-stream: {subject: "persons..events"}, ${events}}}`,
        `  /space: {get: {x-restbus-stream: {subject: "persons events"}, ${events}}}`,
        `  /dotted: {get: {x-restbus-stream: {subject: persons.events, stream: "PERSONS.ALL"}, ${events}}}`,
        `  /slash: {get: {x-restbus-stream: {subject: persons.events, stream: "a/b"}, ${events}}}`,
        `  /long: {get: {x-restbus-stream: {subject: persons.events, stream: ${'S'.repeat(256)}}, ${events}}}`,
        `  /number: {get: {x-restbus-stream: {subject: persons.events, stream: 7}, ${events}}}`,
        '',
      ].join('\n'),
    );
    const read = await readApiDescription(file, { topicPrefix: 'svc' });
    expect(read.diagnostics.map(formatDiagnostic)).toEqual([
      `${file}:1:1  warning  openapi: OpenAPI 3.2.0 is read as 3.1: what later versions added is not understood`,
    ]);
    const routes = checkRoutes(read);
    expect(routes.operations.map(({ path, stream }) => [path, stream?.subject, stream?.stream])).toEqual([
      ['/ok/{id}', 'persons.{id}.events', 'PERSONS'],
    ]);
    const at = (line: number, column: number, path: string, message: string) =>
      `${file}:${line}:${column}  error  paths./${path}: ${message}`;
    expect(routes.diagnostics.map(formatDiagnostic)).toEqual([
      at(5, 18, 'post.post.x-restbus-stream', 'a stream is read with GET: x-restbus-stream belongs on a GET operation'),
      at(
        6,
        17,
        'json.get.x-restbus-stream',
        'a stream needs a 2xx response with the media type text/event-stream (its itemSchema the schema of one event)',
      ),
      at(
        7,
        22,
        'nosubject.get.x-restbus-stream',
        'needs a subject, the NATS subject its events are published to (such as "persons.{id}.events")',
      ),
      at(
        8,
        39,
        'unknown.get.x-restbus-stream.subject',
        'the subject "persons.{id}" has the placeholder {id}, which is not a path parameter of the operation',
      ),
      at(
        9,
        117,
        'part/{id}.get.x-restbus-stream.subject',
        'the subject "persons.x{id}" has the token "x{id}": a placeholder must fill a whole token ("persons.{id}.events", not "persons.x{id}")',
      ),
      at(
        10,
        36,
        'star.get.x-restbus-stream.subject',
        'the subject "persons.*" holds a NATS wildcard ("*" or ">"): events are published to one subject per stream',
      ),
      at(
        11,
        36,
        'tail.get.x-restbus-stream.subject',
        'the subject "persons.>" holds a NATS wildcard ("*" or ">"): events are published to one subject per stream',
      ),
      at(
        12,
        37,
        'empty.get.x-restbus-stream.subject',
        'the subject "persons..events" has an empty token (a "." at an end or next to another)',
      ),
      at(
        13,
        37,
        'space.get.x-restbus-stream.subject',
        'the subject "persons events" holds whitespace, which ends a subject',
      ),
      at(
        14,
        63,
        'dotted.get.x-restbus-stream.stream',
        'the stream name "PERSONS.ALL" holds ".", which a JetStream stream name cannot hold',
      ),
      at(
        15,
        62,
        'slash.get.x-restbus-stream.stream',
        'the stream name "a/b" holds "/", which a JetStream stream name cannot hold',
      ),
      at(
        16,
        61,
        'long.get.x-restbus-stream.stream',
        'the stream name has 256 bytes, more than the 255 a JetStream stream name may have',
      ),
      at(
        17,
        63,
        'number.get.x-restbus-stream.stream',
        'must be a JetStream stream name (a non-empty string such as "PERSONS")',
      ),
    ]);
  });

  it('accepts itemSchema in a media type of 3.0 and 3.1 documents when checking against the official schema', async () => {
    for (const version of ['3.0.3', '3.1.0']) {
      const file = await write(
        `item-schema-${version}.yml`,
        [
          `openapi: ${version}`,
          'info: {title: S, version: "1"}',
          'paths:',
          "  /events: {get: {x-restbus-stream: {subject: events}, responses: {'200': {description: e, content: {text/event-stream: {itemSchema: {type: object}}}}}}}",
          '',
        ].join('\n'),
      );
      const read = await readApiDescription(file, { checkSchema: true });
      expect(read.diagnostics.map(formatDiagnostic)).toEqual([]);
      expect(read.model?.operations[0].stream?.itemSchema).toEqual({ type: 'object' });
    }
  });

  describe('a $ref cycle that crosses files', () => {
    /** Every `$ref` string under `value`, each object visited once. */
    const findRefs = (value: unknown, seen = new Set<object>()): string[] => {
      if (typeof value !== 'object' || value === null || seen.has(value)) return [];
      seen.add(value);
      const own = typeof (value as { $ref?: unknown }).$ref === 'string' ? [(value as { $ref: string }).$ref] : [];
      return [...own, ...Object.values(value).flatMap((child) => findRefs(child, seen))];
    };
    const resolvePointer = (root: unknown, ref: string): unknown =>
      ref
        .slice(2)
        .split('/')
        .map((token) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((at, token) => (at as Record<string, unknown> | undefined)?.[token], root);

    it('leaves only $refs that resolve in schemaRoot, and ajv compiles the response schema against it', async () => {
      await write(
        'cycle-item.yml',
        'Item:\n  type: object\n  properties:\n    name: {type: string}\n    other: {$ref: "cycle-other.yml#/Other"}\n',
      );
      await write(
        'cycle-other.yml',
        'Other:\n  type: object\n  properties:\n    items: {type: array, items: {$ref: "cycle-item.yml#/Item"}}\n',
      );
      await write(
        'cycle-node.yml',
        'Node:\n  type: object\n  required: [value]\n  properties:\n    value: {type: integer}\n    next: {$ref: "#/Node"}\n',
      );
      const file = await write(
        'cycle-api.yml',
        [
          'openapi: 3.1.0',
          'info: {title: C, version: "1"}',
          'paths:',
          "  /items: {get: {responses: {'200': {description: i, content: {application/json: {schema: {$ref: 'cycle-item.yml#/Item'}}}}}}}",
          "  /nodes: {get: {responses: {'200': {description: n, content: {application/json: {schema: {$ref: 'cycle-node.yml#/Node'}}}}}}}",
          '',
        ].join('\n'),
      );
      const { model, diagnostics } = await readApiDescription(file);
      expect(diagnostics).toEqual([]);
      if (!model) throw new Error('no model');
      const schemas = model.operations.map((operation) => operation.responses[0].content['application/json'].schema);
      const refs = findRefs(schemas);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        expect(ref).toMatch(/^#\//);
        expect(typeof resolvePointer(model.schemaRoot, ref)).toBe('object');
      }
      const ajv = new Ajv2020({ strict: false });
      const [items, nodes] = schemas.map((schema) => ajv.compile({ ...model.schemaRoot, allOf: [schema] }));
      expect(items({ name: 'a', other: { items: [{ name: 'b', other: { items: [] } }] } })).toBe(true);
      expect(items({ name: 'a', other: { items: [{ name: 2 }] } })).toBe(false);
      expect(nodes({ value: 1, next: { value: 2, next: { value: 3 } } })).toBe(true);
      expect(nodes({ value: 1, next: { next: { value: 3 } } })).toBe(false);
    });
  });

  it("reads externalValue only in Example objects, not in an example's own value or a schema", async () => {
    const file = await write(
      'data-not-examples.yml',
      [
        'openapi: 3.1.0',
        'info: {title: E, version: "1"}',
        'paths:',
        '  /docs:',
        '    get:',
        '      responses:',
        '        "200":',
        '          description: a document that speaks of examples',
        '          content:',
        '            application/json:',
        '              schema: {type: object, examples: [{examples: {x: {externalValue: schema.json}}}]}',
        '              example: {examples: {fromData: {externalValue: data.json}}}',
        '',
      ].join('\n'),
    );
    const { model, diagnostics } = await readApiDescription(file);
    expect(diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(model?.operations[0].responses[0].content['application/json'].examples).toEqual([
      { name: 'default', value: { examples: { fromData: { externalValue: 'data.json' } } } },
    ]);
  });

  it('carries examples given by externalValue, read next to the document, and warns of those it cannot read', async () => {
    await mkdir(join(dir, 'ex'), { recursive: true });
    await write('ex/person.json', '{"name": "Ada"}');
    await write('ex/person.yaml', 'name: Grace\n');
    await write('ex/note.txt', 'plain words\n');
    await write('ex/id.json', '"42"');
    await write('ex/big.json', JSON.stringify({ name: 'x'.repeat(3000) }));
    await write('ex/broken.json', '{"name": ');
    const file = await write(
      'external-examples.yml',
      [
        'openapi: 3.1.0',
        'info: {title: E, version: "1"}',
        'paths:',
        '  /persons/{id}:',
        '    get:',
        '      parameters:',
        '        - name: id',
        '          in: path',
        '          required: true',
        '          schema: {type: string}',
        '          examples: {fromFile: {externalValue: ex/id.json}}',
        '      responses:',
        '        "200":',
        '          description: the person',
        '          content:',
        '            application/json:',
        '              examples:',
        '                inline: {value: {name: Inline}}',
        '                fromJson: {summary: from JSON, externalValue: ex/person.json}',
        '                fromYaml: {externalValue: ex/person.yaml}',
        '                missing: {externalValue: ex/nope.json}',
        '                remote: {externalValue: "https://example.com/person.json"}',
        '                big: {externalValue: ex/big.json}',
        '                broken: {externalValue: ex/broken.json}',
        '            text/plain:',
        '              examples: {fromText: {externalValue: ex/note.txt}}',
        '',
      ].join('\n'),
    );
    const { model, diagnostics } = await readApiDescription(file, {
      limits: { fileBytes: 2000, totalBytes: 100_000, files: 20, expandedNodes: 10_000, depth: 64 },
    });
    const [operation] = model?.operations ?? [];
    expect(operation.parameters.path[0].examples).toEqual([{ name: 'fromFile', value: '42' }]);
    expect(operation.responses[0].content['application/json'].examples).toEqual([
      { name: 'inline', value: { name: 'Inline' } },
      { name: 'fromJson', value: { name: 'Ada' }, summary: 'from JSON' },
      { name: 'fromYaml', value: { name: 'Grace' } },
    ]);
    expect(operation.responses[0].content['text/plain'].examples).toEqual([
      { name: 'fromText', value: 'plain words\n' },
    ]);
    const examples = 'paths./persons/{id}.get.responses.200.content.application/json.examples';
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      `${file}:21:27  warning  ${examples}.missing.externalValue: the example's externalValue "ex/nope.json" cannot be read (${join(dir, 'ex/nope.json')} does not exist): the example is left out`,
      `${file}:22:26  warning  ${examples}.remote.externalValue: the example's externalValue "https://example.com/person.json" names a URL, and examples are read only from local files: the example is left out`,
      `${file}:23:23  warning  ${examples}.big.externalValue: the example's externalValue "ex/big.json" cannot be read (${join(dir, 'ex/big.json')} has 3011 bytes, more than the limit of 2000): the example is left out`,
      `${file}:24:26  warning  ${examples}.broken.externalValue: the example's externalValue "ex/broken.json" cannot be read (it is not valid JSON): the example is left out`,
    ]);
  });
});
