import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
