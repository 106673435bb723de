import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RestbusError, createLogger } from '@restbus/infra';
import { startMockServer } from '@restbus/mock-server';
import { FIXTURE_FILES, writeFiles } from '../docs/__tests__/fixture-project';
import { runGeneratedTests } from '../__tests__/run-generated-tests';
import { generateTests } from './generate-tests';

const run = promisify(execFile);

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rest-tool-tests-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const createProject = async (files: Record<string, string> = FIXTURE_FILES): Promise<string> =>
  writeFiles(await mkdtemp(join(root, 'project-')), files);
const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

const ODD_FILE = "test/Run- it-now - -fast-- -yes- - -quoted- 'single' ${x} `tick`.mjs";
const ALL_FILES = [
  'test/Get Monitoring Is Alive.mjs',
  'test/Get Orders.mjs',
  'test/Create one order.mjs',
  'test/Get Order.mjs',
  'test/Update Order.mjs',
  'test/Delete Order.mjs',
  ODD_FILE,
];

/** Runs generated test files with Node's test runner, in one process; resolves with its exit code and output. */
const runNodeTests = (files: string[], baseUrl: string): Promise<{ code: number; output: string }> =>
  runGeneratedTests(root, files, { API_BASE_URL: baseUrl });

describe('generateTests', () => {
  it('writes one file per test case, named safely after it, that is valid JavaScript', async () => {
    const dir = await createProject();
    const lines: string[] = [];
    const result = await generateTests({ projectDir: dir, verbose: (line) => lines.push(line) });
    expect(result).toEqual({ written: ALL_FILES, skipped: [], warnings: [], baseUrl: 'http://localhost:3007/rest' });
    expect((await readdir(join(dir, 'test'))).sort()).toEqual(ALL_FILES.map((file) => file.slice(5)).sort());
    expect(lines).toContain('wrote test/Get Orders.mjs');
    for (const file of ALL_FILES) await run(process.execPath, ['--check', join(dir, file)]);
    const odd = await readFile(join(dir, ODD_FILE), 'utf8');
    expect(odd).toContain('test("Run: it/now \\\\ <fast>? *yes* | \\"quoted\\" \'single\' ${x} `tick`", async');
    expect(odd).toContain('path: "/odd/a%20b%2Fc%3Fd/run"');
    expect(odd).toContain('bodyFile: "../services/odd names/ünï & <co>/body #1 & more.json"');
  });

  it('fills path parameters from the declared defaults: the URL kind first, then any kind', async () => {
    const dir = await createProject();
    await generateTests({ projectDir: dir });
    expect(await readFile(join(dir, 'test/Get Order.mjs'), 'utf8')).toContain('path: "/orders/42"');
    expect(await readFile(join(dir, 'test/Update Order.mjs'), 'utf8')).toContain('path: "/orders/1"');
  });

  it('never overwrites an existing file and reports it as skipped', async () => {
    const dir = await createProject();
    await writeFiles(dir, { 'test/Get Orders.mjs': '// mine\n' });
    const result = await generateTests({ projectDir: dir });
    expect(result.skipped).toEqual(['test/Get Orders.mjs']);
    expect(result.written).toHaveLength(ALL_FILES.length - 1);
    expect(await readFile(join(dir, 'test/Get Orders.mjs'), 'utf8')).toBe('// mine\n');
    expect(await generateTests({ projectDir: dir })).toEqual({
      written: [],
      skipped: ALL_FILES,
      warnings: [],
      baseUrl: 'http://localhost:3007/rest',
    });
  });

  it("uses the project's own test templates before the tool's", async () => {
    const dir = await createProject({
      ...FIXTURE_FILES,
      'templates/test/testGetMethod.mustache': '// custom {{{js.name}}} {{testCase.name}} & {{method}}\n',
    });
    await generateTests({ projectDir: dir });
    expect(await readFile(join(dir, 'test/Get Orders.mjs'), 'utf8')).toBe('// custom "Get Orders" Get Orders & GET\n');
    expect(await readFile(join(dir, 'test/Update Order.mjs'), 'utf8')).toContain("from 'node:test'");
  });

  it('refuses an unknown or path-like template before writing anything', async () => {
    const order = FIXTURE_FILES['services/orders/order/service.yml'];
    const dir = await createProject({
      ...FIXTURE_FILES,
      'services/orders/order/service.yml': order
        .replace('template: testPutMethod.mustache', 'template: testPatchMethod')
        .replace('template: testDelMethod.mustache', 'template: ../../server/evil'),
    });
    const err = await generateTests({ projectDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RestbusError);
    expect((err as RestbusError).code).toBe('PROJECT_INVALID');
    expect((err as RestbusError).message.split('\n')).toEqual([
      expect.stringMatching(
        /^services\/orders\/order\/service\.yml: \/methods\/PUT\/testCases\/0\/template: templates\/test: no testPatchMethod\.mustache in /,
      ),
      'services/orders/order/service.yml: /methods/DELETE/testCases/0/template: "../../server/evil" is not a file name in templates/test',
    ]);
    expect(await exists(join(dir, 'test'))).toBe(false);
  });

  it('gives two test cases of the same name two files', async () => {
    const orders = FIXTURE_FILES['services/orders/service.yml'];
    const dir = await createProject({
      ...FIXTURE_FILES,
      'services/orders/service.yml': orders.replace('name: Create one order', 'name: get orders'),
    });
    const { written } = await generateTests({ projectDir: dir });
    expect(written).toContain('test/get orders (2).mjs');
  });
});

describe('generateTests warnings', () => {
  it('names a request body file that does not exist, by descriptor and test case, and still writes the test', async () => {
    const files: Record<string, string> = { ...FIXTURE_FILES };
    delete files['services/orders/postCollection-requestBody.json'];
    const dir = await createProject(files);
    const { written, warnings } = await generateTests({ projectDir: dir });
    expect(written).toContain('test/Create one order.mjs');
    expect(warnings).toEqual([
      expect.stringMatching(
        /^services\/orders\/service\.yml: \/methods\/POST\/testCases\/0: request body postCollection-requestBody\.json does not exist$/,
      ),
    ]);
  });
});

describe('the generated tests', () => {
  // The fixture's DELETE declares a mock file that does not exist (the docs show that); here it answers no body.
  const servable = {
    ...FIXTURE_FILES,
    'server/config.yml': `${FIXTURE_FILES['server/config.yml']}    requireLogin: true\n`,
    'services/orders/order/service.yml': FIXTURE_FILES['services/orders/order/service.yml'].replace(
      '        mockBody: no-such-file.json\n',
      '',
    ),
  };
  const logger = createLogger({ name: 'mock', level: 'silent' });

  it('pass against the mock server, sending credentials, headers and bodies from any working folder', async () => {
    const dir = await createProject(servable);
    const { written } = await generateTests({ projectDir: dir });
    const server = await startMockServer({ projectDir: dir, port: 0, host: '127.0.0.1', watch: false, logger });
    try {
      const result = await runNodeTests(
        written.map((file) => join(dir, file)),
        `${server.url}/rest`,
      );
      expect(result.output).toContain(`# pass ${ALL_FILES.length}`);
      expect(result.code).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('fail when the server answers another status or lacks a declared header, showing the URL and the answer', async () => {
    const dir = await createProject(servable);
    const { written } = await generateTests({ projectDir: dir });
    const orders = join(dir, 'services/orders/service.yml');
    const changed = (await readFile(orders, 'utf8'))
      .replace('        statusCode: 200\n', '        statusCode: 202\n')
      .replace('          - { field: Location, content: /rest/orders/1 }\n        mockBody', '        mockBody');
    await writeFile(orders, changed);
    const server = await startMockServer({ projectDir: dir, port: 0, host: '127.0.0.1', watch: false, logger });
    try {
      const result = await runNodeTests(
        written.map((file) => join(dir, file)),
        `${server.url}/rest`,
      );
      expect(result.code).not.toBe(0);
      expect(result.output).toContain(`# pass ${ALL_FILES.length - 2}`);
      expect(result.output).toContain('# fail 2');
      // What a person reads: the URL called, the status and the start of the body that answered.
      expect(result.output).toContain(
        `Get the list of orders: expected 200, but GET ${server.url}/rest/orders answered 202 Accepted\n` +
          '    [{"id":1,"status":"open"}]',
      );
      expect(result.output).toContain(
        `Create a new order: the Location header is missing; POST ${server.url}/rest/orders answered 201 Created\n` +
          '    {"id":1,"item":"book"}',
      );
    } finally {
      await server.close();
    }
  });

  it('fail naming the URL when no server answers', async () => {
    const dir = await createProject(servable);
    await generateTests({ projectDir: dir });
    // A port that was free a moment ago: nothing listens there.
    const server = await startMockServer({ projectDir: dir, port: 0, host: '127.0.0.1', watch: false, logger });
    const url = server.url;
    await server.close();
    const result = await runNodeTests([join(dir, 'test/Get Orders.mjs')], `${url}/rest`);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      `Get the list of orders: GET ${url}/rest/orders got no answer (connect ECONNREFUSED`,
    );
    expect(result.output).toContain('is the server running?');
    expect(result.output).toContain(`(base URL ${url}/rest, from API_BASE_URL)`);
  });

  it("fail naming config.yml's baseUrl as where the URL came from, and API_BASE_URL as the way to call another server", async () => {
    // A port that was free a moment ago: nothing listens there.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const dir = await createProject({
      ...servable,
      'config.yml': FIXTURE_FILES['config.yml'].replace(
        'baseUrl: http://localhost:3007/rest',
        `baseUrl: http://127.0.0.1:${closed}/rest`,
      ),
    });
    await generateTests({ projectDir: dir });
    const env = { ...process.env };
    delete env.API_BASE_URL;
    const result = await run(process.execPath, ['--test', join(dir, 'test/Get Orders.mjs')], { cwd: root, env }).then(
      () => ({ code: 0, output: '' }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, output: err.stdout + err.stderr }),
    );
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      `(base URL http://127.0.0.1:${closed}/rest, from baseUrl in config.yml; API_BASE_URL=<url> calls another server)`,
    );
  });
});

describe("generateTests with a project's own templates, as rest-tool 0.4/0.5 made them", () => {
  // A CommonJS template in the shape of the mocha templates rest-tool 0.5 put in templates/test/, written for
  // node:test so that it runs here; it uses the variables upstream gave them.
  const UPSTREAM_GET = [
    "var test = require('node:test');",
    "var assert = require('node:assert');",
    "var path = require('path');",
    '',
    "test.describe('{{description}}', function () {",
    "  test.it('should {{description}}', async function () {",
    '    var headers = { Accept: "application/json" };',
    "    {{#loginCredentials}}headers.Authorization = 'Basic ' + Buffer.from('{{user}}:{{pass}}').toString('base64');{{/loginCredentials}}",
    "    var res = await fetch('{{baseUrl}}{{url}}', { headers: headers });",
    '    assert.strictEqual(res.status, {{response.statusCode}});',
    "    assert.ok(path.resolve('{{contentPath}}'));",
    '  });',
    '});',
    '',
  ].join('\n');
  const logger = createLogger({ name: 'mock', level: 'silent' });

  it('renders them with the values upstream gave them, into .js files that run, and keeps its own templates for the rest', async () => {
    const dir = await createProject({
      ...FIXTURE_FILES,
      'templates/test/testGetMethod.mustache': UPSTREAM_GET,
      'services/orders/order/service.yml': FIXTURE_FILES['services/orders/order/service.yml'].replace(
        '        mockBody: no-such-file.json\n',
        '',
      ),
    });
    const server = await startMockServer({ projectDir: dir, port: 0, host: '127.0.0.1', watch: false, logger });
    try {
      const config = join(dir, 'config.yml');
      await writeFile(
        config,
        (await readFile(config, 'utf8')).replace('http://localhost:3007/rest', `${server.url}/rest`),
      );
      const { written } = await generateTests({ projectDir: dir });
      expect(written).toEqual(
        expect.arrayContaining(['test/Get Monitoring Is Alive.js', 'test/Get Orders.js', 'test/Create one order.mjs']),
      );
      const orders = await readFile(join(dir, 'test/Get Orders.js'), 'utf8');
      expect(orders).toContain("test.describe('Get the list of orders'");
      expect(orders).toContain(`fetch('${server.url}/rest/orders'`);
      expect(orders).toContain("Buffer.from('username:p@ss:word')");
      expect(orders).toContain("path.resolve('services/orders')");
      expect(orders).toContain('assert.strictEqual(res.status, 200);');
      const result = await runNodeTests([join(dir, 'test/Get Orders.js')], `${server.url}/rest`);
      expect(result.output).toContain('# pass 1');
      expect(result.code).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('names the files .cjs when the project makes .js files ES modules', async () => {
    const dir = await createProject({
      ...FIXTURE_FILES,
      'package.json': '{"type": "module"}',
      'templates/test/testGetMethod.mustache': UPSTREAM_GET,
    });
    const { written } = await generateTests({ projectDir: dir });
    expect(written).toContain('test/Get Orders.cjs');
    expect(written).toContain('test/Create one order.mjs');
  });
});
