import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { GATEWAY_MAIN as MAIN, runGateway as run } from '../__tests__/run-gateway';

/** An OpenAPI 3.0 document as people write them by hand: no title, a response without description. */
const sloppy30 = `openapi: 3.0.3
info:
  version: '1'
paths:
  /pets/{id}:
    get:
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer } }
      responses:
        '200':
          content:
            application/json:
              example: { id: 1 }
`;

/** Swagger 2.0 in JSON: a query parameter without its type, which the schema's oneOf reports four ways. */
const sloppy20 = JSON.stringify(
  {
    swagger: '2.0',
    info: { title: 'pets', version: '1' },
    paths: {
      '/pets': {
        get: {
          parameters: [{ name: 'limit', in: 'query' }],
          responses: { '200': { description: 'pets' } },
        },
      },
    },
  },
  null,
  2,
);

/** OpenAPI 3.1: an example that does not match its schema. */
const sloppy31 = `openapi: 3.1.0
info: { title: pets, version: '1' }
paths:
  /pets:
    get:
      responses:
        '200':
          description: pets
          content:
            application/json:
              schema: { type: array, items: { type: string } }
              example: [1, 2]
`;

/** What keeps routes from being built: an unclosed template, two operations on one route, a missing $ref. */
const unbuildable = `openapi: 3.0.3
info: { title: pets, version: '1' }
paths:
  /pets/{id:
    get:
      responses: { '200': { description: ok } }
  /owners/{ownerId}:
    get:
      responses: { '200': { description: ok } }
  /owners/{id}:
    get:
      responses: { '200': { $ref: '#/components/responses/Gone' } }
`;

let dir: string;
const files: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-lenient-'));
  for (const [name, text] of Object.entries({
    'sloppy-3.0.yml': sloppy30,
    'sloppy-2.0.json': sloppy20,
    'sloppy-3.1.yaml': sloppy31,
    'unbuildable.yml': unbuildable,
  })) {
    files[name] = join(dir, name);
    await writeFile(files[name], text);
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('restbus-gateway --check', () => {
  it('prints one labelled line per problem with file, line and column, and exits 0 when only warnings', async () => {
    const file = files['sloppy-3.0.yml'];
    const result = await run(['--check', '-r', file]);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      `${file}:2:6  warning  info: missing required "title"`,
      `${file}:10:15  warning  paths./pets/{id}.get.responses.200: missing required "description"`,
      `${file}: 0 errors, 2 warnings; 1 operation can be served`,
    ]);
    expect(result.code).toBe(0);
  });

  it('reports the branch a Swagger 2.0 parameter means, not every branch of the oneOf, in a JSON document', async () => {
    const file = files['sloppy-2.0.json'];
    const result = await run(['--check', '-r', file]);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      `${file}:11:11  warning  paths./pets.get.parameters.0: missing required "type"`,
      `${file}: 0 errors, 1 warning; 1 operation can be served`,
    ]);
    expect(result.code).toBe(0);
  });

  it('warns about an example that does not match its schema in an OpenAPI 3.1 document', async () => {
    const file = files['sloppy-3.1.yaml'];
    const result = await run(['--check', '-r', file]);
    const lines = result.stdout.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${file}:12:\\d+  warning  paths\\./pets\\.get\\.responses\\.200\\.content\\.application/json\\.example`,
      ),
    );
    expect(lines.at(-1)).toMatch(/0 errors, \d+ warnings?; 1 operation can be served$/);
    expect(result.code).toBe(0);
  });

  it('exits 1 with --strict, where warnings refuse too', async () => {
    const result = await run(['--check', '--strict', '-r', files['sloppy-3.0.yml']]);
    expect(result.stdout).toContain('  error  info: missing required "title"');
    expect(result.stdout).toContain('cannot be served (--strict: warnings refuse too)');
    expect(result.code).toBe(1);
  });

  it('exits 1 naming each thing that keeps a route from being built, where it is', async () => {
    const file = files['unbuildable.yml'];
    const result = await run(['--check', '-r', file]);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      `${file}:4:3  error  paths./pets/{id: not a valid path template: each "{" opens a parameter name that a "}" closes before the next "/"`,
      `${file}:8:9  warning  paths./owners/{ownerId}.get: Operation must define parameter "{ownerId}" as expected by path "/owners/{ownerId}"`,
      `${file}:10:16  warning  paths./owners/{id}: Paths "/owners/{ownerId}" and "/owners/{id}" must not be equivalent`,
      `${file}:11:5  error  paths./owners/{id}.get: GET /owners/{id} is described twice: also as /owners/{ownerId}`,
      `${file}:11:9  warning  paths./owners/{id}.get: Operation must define parameter "{id}" as expected by path "/owners/{id}"`,
      `${file}:12:20  error  paths./owners/{id}.get.responses.200: cannot resolve a $ref: Missing $ref pointer "#/components/responses/Gone". Token "components" does not exist.`,
      `${file}: 3 errors, 3 warnings; cannot be served`,
    ]);
    expect(result.code).toBe(1);
  });
});

describe('restbus-gateway serving a description with warnings', () => {
  it('starts and routes it, logging each warning once per load (at start, after it listens) with its parts in the JSON fields', async () => {
    const file = files['sloppy-3.0.yml'];
    const child = spawn(process.execPath, [MAIN, '-r', file, '-p', '0', '--log-format', 'json']);
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const logs: Array<Record<string, unknown>> = [];
    const readUntil = async (msg: string): Promise<Array<Record<string, unknown>>> => {
      const read: Array<Record<string, unknown>> = [];
      for (let next = await lines.next(); !next.done; next = await lines.next()) {
        read.push(JSON.parse(next.value) as Record<string, unknown>);
        if (read.at(-1)!.msg === msg) return read;
      }
      throw new Error(`the gateway ended before logging "${msg}"`);
    };
    try {
      // It serves before the lint (Spectral, in a worker) ends: the lint's warnings come after it listens.
      logs.push(...(await readUntil('API checked for warnings')));
      const listening = logs.findIndex((entry) => entry.msg === 'gateway listening');
      const port = logs[listening].port as number;
      expect(logs.findIndex((entry) => entry.diagnostic !== undefined)).toBeGreaterThan(listening);
      expect(logs.at(-1)!.warnings).toBe(2);
      const warnings = logs.filter((entry) => entry.diagnostic !== undefined);
      expect(warnings).toEqual([
        expect.objectContaining({
          level: 40,
          msg: `${file}:2:6  warning  info: missing required "title"`,
          diagnostic: {
            severity: 'warning',
            file,
            line: 2,
            column: 6,
            path: 'info',
            message: 'missing required "title"',
          },
        }),
        expect.objectContaining({
          msg: `${file}:10:15  warning  paths./pets/{id}.get.responses.200: missing required "description"`,
        }),
      ]);
      // Without -u every described endpoint answers 501: the route was built.
      const response = await fetch(`http://127.0.0.1:${port}/pets/7`);
      expect(response.status).toBe(501);
      const unknown = await fetch(`http://127.0.0.1:${port}/owners`);
      expect(unknown.status).toBe(404);
      // A reload (SIGHUP) says them again, once.
      child.kill('SIGHUP');
      const reloaded = await readUntil('API reloaded');
      expect(reloaded.filter((entry) => entry.diagnostic !== undefined).map((entry) => entry.msg)).toEqual(
        warnings.map((entry) => entry.msg),
      );
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('refuses to start with --strict (env GATEWAY_STRICT too), exit 1 and the problems on stderr', async () => {
    const file = files['sloppy-3.0.yml'];
    const result = await run(['-r', file, '-p', '0', '--strict']);
    expect(await run(['-r', file, '-p', '0'], { GATEWAY_STRICT: 'true' })).toEqual(result);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `restbus-gateway: ${file}: 2 problems keep the API description from being served:\n` +
        `  ${file}:2:6  error  info: missing required "title"\n` +
        `  ${file}:10:15  error  paths./pets/{id}.get.responses.200: missing required "description"\n`,
    );
  });
});
