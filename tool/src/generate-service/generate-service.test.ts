import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  createLogger,
  startContractService,
  type Contract,
  type ContractService,
  type ResponseMessage,
} from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { connect, type NatsConnection } from 'nats';
import { parse, stringify } from 'yaml';
import { compileFolder } from './__tests__/compile-folder';
import { GENERATED_DIR, generateService, HANDLERS_FILE } from './generate-service';

const root = resolve(__dirname, '../../..');
const personApi = join(root, 'person-service/person-api.yml');
const systemsApi = join(root, 'systems-service/systems-api.yml');

// Generated folders live inside the repository, so that `@restbus/infra` resolves through its node_modules as a
// service of this workspace resolves it (infra/runtime must be built: the compiler reads its dist/*.d.ts).
let scratch: string;
beforeAll(async () => {
  await mkdir(join(root, '.scratch'), { recursive: true });
  scratch = await mkdtemp(join(root, '.scratch', 'generate-service-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const messages = (errors: Array<{ file: string; message: string }>): string[] =>
  errors.map(({ file, message }) => `${file}: ${message}`);

describe('rest-tool generate-service on person-api.yml', () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(scratch, 'person');
    await generateService({ cwd: root, file: personApi, folder: dir });
  });

  it('writes a service whose generated code and stub handlers compile under strict', () => {
    expect(messages(compileFolder(dir))).toEqual([]);
  });

  /** The compiler's errors with the stub handlers file changed by `edit`; the stubs are put back after. */
  async function compileWith(edit: (stubs: string) => string): Promise<string> {
    const handlers = join(dir, HANDLERS_FILE);
    const stubs = await readFile(handlers, 'utf8');
    try {
      await writeFile(handlers, edit(stubs));
      return messages(compileFolder(dir)).join('\n');
    } finally {
      await writeFile(handlers, stubs);
    }
  }

  it('fails to compile when a handler is missing', async () => {
    const errors = await compileWith((stubs) => stubs.replace(/ *"deletePersonsByPersonId": .*\n/, ''));
    expect(errors).toContain(`Property '"deletePersonsByPersonId"' is missing`);
  });

  it('fails to compile when a handler answers an undeclared status or a body of the wrong shape', async () => {
    const errors = await compileWith((stubs) =>
      stubs
        .replace(
          '"getPersonsByPersonId": async () => notImplemented("getPersonsByPersonId")',
          '"getPersonsByPersonId": async () => ({ status: 418, body: { error: "teapot", code: "X" } })',
        )
        .replace(
          '"putPersonsByPersonId": async () => notImplemented("putPersonsByPersonId")',
          '"putPersonsByPersonId": async ({ body }) => ({ status: 200, body: { ...body, givenName: 7 } })',
        ),
    );
    expect(errors).toContain("Type '418' is not assignable to type '404'");
    expect(errors).toMatch(/givenName[\s\S]*Type 'number' is not assignable to type 'string'/);
  });

  it('accepts JSON text standing for the declared body (jsonTextOf), and refuses text standing for another type', async () => {
    const person = '{ id: string; familyName: string; givenName: string }';
    const errors = await compileWith((stubs) =>
      stubs
        .replace('import { notImplemented,', 'import { jsonTextOf, notImplemented,')
        .replace(
          '"getPersons": async () => notImplemented("getPersons")',
          `getPersons: async () => ({ status: 200, body: jsonTextOf<Array<${person}>>("[]") })`,
        )
        .replace(
          '"getPersonsByPersonId": async () => notImplemented("getPersonsByPersonId")',
          '"getPersonsByPersonId": async () => ({ status: 200, body: jsonTextOf<{ id: number }>("{}") })',
        ),
    );
    expect(errors.split('\n').filter((line) => line.startsWith('src/'))).toHaveLength(1);
    expect(errors).toContain(
      "Type 'JsonTextOf<{ id: number; }>' is not assignable to type 'JsonTextOf<{ id: string; familyName: string; givenName: string; }>'",
    );
  });

  it("types who called (the gateway's verified identity) in each handler's input: read as a string, never as another type", async () => {
    const reads = await compileWith((stubs) =>
      stubs.replace(
        '"getPersons": async () => notImplemented("getPersons")',
        '"getPersons": async ({ caller }) => (caller?.scopes.includes("persons:read") && caller.subject.length > 0 ? notImplemented("getPersons") : notImplemented(caller?.issuer ?? "anonymous"))',
      ),
    );
    expect(reads).toBe('');
    const misread = await compileWith((stubs) =>
      stubs.replace(
        '"getPersons": async () => notImplemented("getPersons")',
        '"getPersons": async ({ caller }) => notImplemented(String(caller?.subject.toFixed(2)))',
      ),
    );
    expect(misread).toContain("Property 'toFixed' does not exist on type 'string'");
  });

  it('never overwrites the handlers file, and after an operation is added the only compile error is its handler', async () => {
    const handlers = join(dir, HANDLERS_FILE);
    const mine = (await readFile(handlers, 'utf8')).replace('// Your handlers', '// My handlers');
    await writeFile(handlers, mine);
    const document = parse(await readFile(personApi, 'utf8'));
    document.paths['/persons/{personId}/friends'] = {
      get: { operationId: 'listFriends', responses: { '200': { description: 'friends' } } },
    };
    const grown = join(scratch, 'person-api-grown.yml');
    await writeFile(grown, stringify(document));

    const result = await generateService({ cwd: root, file: grown, folder: dir });

    expect(result.kept).toContain(HANDLERS_FILE);
    expect(await readFile(handlers, 'utf8')).toBe(mine);
    const errors = messages(compileFolder(dir));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`Property '"listFriends"' is missing`);
  });
});

it('writes code that compiles under strict for the systems API', async () => {
  const dir = join(scratch, 'systems');
  await generateService({ cwd: root, file: systemsApi, folder: dir });
  expect(messages(compileFolder(dir))).toEqual([]);
});

it.each(['person', 'systems'])(
  "%s-service's src/generated is what the tool writes from its API file now",
  async (name) => {
    const dir = join(scratch, `fresh-${name}`);
    await mkdir(dir, { recursive: true });
    const api = `${name}-api.yml`;
    await copyFile(join(root, `${name}-service`, api), join(dir, api));
    await generateService({ cwd: dir, file: api });
    for (const file of ['api-types.ts', 'contract.ts']) {
      const committed = await readFile(join(root, `${name}-service`, GENERATED_DIR, file), 'utf8');
      expect(await readFile(join(dir, GENERATED_DIR, file), 'utf8')).toBe(committed);
    }
  },
);

describe('a service on the generated person-api code, against a real nats-server', () => {
  let server: TestNatsServer;
  let nc: NatsConnection;
  let service: ContractService;
  // The generated module, loaded as the service would import it; typed loosely here, its own types were checked above.
  let generated: {
    contract: Contract;
    createClient(nc: NatsConnection, topicPrefix: string): Record<string, (input?: object) => Promise<ResponseMessage>>;
  };
  const stored = { id: 'luke', familyName: 'Skywalker', givenName: 'Luke' };

  beforeAll(async () => {
    const dir = join(scratch, 'person-running');
    await generateService({ cwd: root, file: personApi, folder: dir });
    generated = jest.requireActual<typeof generated>(join(dir, 'src/generated/contract.ts'));
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const notImplemented = () => ({ status: 501 });
    service = await startContractService({
      nc,
      logger: createLogger({ name: 'test', level: 'silent' }),
      name: 'person-service',
      version: '1.0.0',
      topicPrefix: 'easer',
      contract: generated.contract,
      handlers: {
        getPersons: async ({ query }: { query: { limit?: number } }) => ({
          status: 200,
          headers: { 'x-limit-type': typeof query.limit },
          body: [stored],
        }),
        postPersons: notImplemented,
        deletePersons: notImplemented,
        getPersonsByPersonId: async ({ params }: { params: { personId: string } }) =>
          params.personId === stored.id
            ? { status: 200, body: stored }
            : { status: 404, body: { error: 'no', code: 'NOT_FOUND' } },
        putPersonsByPersonId: async ({ body }: { body: unknown }) => ({ status: 200, body }),
        deletePersonsByPersonId: notImplemented,
        getPersonsEvents: notImplemented,
      },
    });
  });
  afterAll(async () => {
    await service?.stop();
    await nc?.close();
    await server?.dispose();
  });

  it('lists one endpoint per operation in $SRV.INFO, with its name, operationId, method and path', async () => {
    const infos = [];
    for await (const info of await nc.services.client().info('person-service')) infos.push(info);
    expect(infos).toHaveLength(1);
    const endpoints = infos[0].endpoints.map(({ name, subject, metadata }) => ({ name, subject, metadata }));
    expect(endpoints).toEqual(
      generated.contract.operations.map((operation) => ({
        name: operation.name,
        subject: `easer.${operation.method}_${operation.path}`,
        metadata: { name: operation.name, method: operation.method.toUpperCase(), path: operation.path },
      })),
    );
  });

  it('round-trips a typed client call, with the query coerced to its schema type', async () => {
    const client = generated.createClient(nc, 'easer');
    expect(await client.getPersons({ query: { limit: 5 } })).toEqual({
      status: 200,
      // The one media type its 200 declares, which the handler did not name.
      headers: { 'x-limit-type': 'number', 'content-type': 'application/json' },
      body: [stored],
    });
    expect((await client.getPersonsByPersonId({ params: { personId: 'leia' } })).status).toBe(404);
  });

  it('answers 400 REQUEST_INVALID listing every problem before the handler runs', async () => {
    const client = generated.createClient(nc, 'easer');
    const reply = await client.putPersonsByPersonId({
      params: { personId: 'luke' },
      body: { id: '', familyName: 7, nickname: 'x' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      error: 'the request does not match the API description',
      code: 'REQUEST_INVALID',
      problems: expect.arrayContaining([
        { location: 'body', message: "must have required property 'givenName'" },
        { location: 'body', message: 'must NOT have additional properties' },
        { location: 'body/id', message: 'must NOT have fewer than 1 characters' },
        { location: 'body/familyName', message: 'must be string' },
      ]),
    });
    expect((reply.body as { problems: unknown[] }).problems).toHaveLength(4);
    const badQuery = await client.getPersons({ query: { limit: 0, cursor: 'c'.repeat(65) } });
    expect(badQuery.body).toMatchObject({
      code: 'REQUEST_INVALID',
      problems: [
        { location: 'query.limit', message: 'must be >= 1' },
        { location: 'query.cursor', message: 'must NOT have more than 64 characters' },
      ],
    });
  });
});

it('writes a runnable service into an empty folder: its test per operation passes against a real nats-server', async () => {
  const dir = join(scratch, 'new-service');
  const result = await generateService({ cwd: root, file: personApi, folder: dir });
  expect(result.written.sort()).toEqual(
    [
      'package.json',
      'tsconfig.json',
      'src/main.ts',
      'src/handlers.ts',
      'src/handlers.test.ts',
      'src/generated/api-types.ts',
      'src/generated/contract.ts',
    ].sort(),
  );
  const npmTest = () =>
    promisify(execFile)('npm', ['test'], { cwd: dir, timeout: 120_000 }).then(
      ({ stdout }) => stdout,
      (err: { stdout: string; stderr: string }) => `${err.stdout}\n${err.stderr}`,
    );
  expect(await npmTest()).toMatch(/# pass 7\n# fail 0\n/);

  // The tests stay true as the handlers are written: a declared status passes, a handler that fails (500) does not.
  const handlers = join(dir, HANDLERS_FILE);
  await writeFile(
    handlers,
    (await readFile(handlers, 'utf8'))
      .replace('async () => notImplemented("getPersons")', 'async () => ({ status: 200, body: [] })')
      .replace('async () => notImplemented("deletePersons")', 'async () => { throw new Error("the store is gone"); }'),
  );
  const output = await npmTest();
  expect(output).toMatch(/# pass 6\n# fail 1\n/);
  expect(output).toMatch(/not ok \d+ - deletePersons/);
});
