import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { parse } from 'yaml';
import { generateDocs } from '../docs';
import { generateTests } from '../testgen';
import { makeTempDir, MOCK_MAIN, runMockCheck, runNode, runTool } from './tool-helpers';

// A project in the shape rest-tool 0.5 generated (config, server/ with its modules and environments, services with
// YAML anchors, its own templates/docs in Mustache and templates/test for mocha + should + superagent), taken
// through every command unchanged; only baseUrl is pointed at the port the mock server got.
const FIXTURE = join(__dirname, 'fixtures', 'rest-tool-0.5');
const generators = { generateDocs, generateTests };
const LISTENING = /^Express server listening on port (\d+)$/m;
const DANGLING_SCHEMA =
  'services/customers/service.yml:26: /methods/GET/responses/0/validationSchema: the file ' +
  'getCustomers-responseBody-validationSchema.json does not exist (only documentation and generated tests read it)';
// The project's test dependencies, as its package.json names them (should 3.1.2, superagent 0.15), from ours.
const NODE_MODULES = join(dirname(require.resolve('should/package.json')), '..');
const MOCHA = require.resolve('mocha/bin/mocha.js');

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let project: string;
let mock: ChildProcessWithoutNullStreams;
let stdout = '';
let baseUrl: string;

beforeAll(async () => {
  temp = await makeTempDir();
  project = join(temp.dir, 'crm-api');
  await cp(FIXTURE, project, { recursive: true });
  // The built program in a real Node, as the project's own harness would start its server.
  mock = spawn(process.execPath, [MOCK_MAIN, '--project', project, '--port', '0', '--host', '127.0.0.1'], {
    env: { ...process.env, LOG_FORMAT: 'json' },
  });
  const lines = createInterface({ input: mock.stdout });
  const port = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      stdout += `${line}\n`;
      const found = LISTENING.exec(line);
      if (found) resolve(found[1]);
    });
    mock.on('close', (code) => reject(new Error(`restbus-mock exited with ${code}: ${stdout}`)));
  });
  baseUrl = `http://127.0.0.1:${port}/rest`;
});
afterAll(async () => {
  if (mock.exitCode === null) {
    const closed = new Promise((resolve) => mock.on('close', resolve));
    mock.kill('SIGTERM');
    await closed;
  }
  await temp.remove();
});

/** The project's mocha tests, run from its folder as its Makefile does; mocha's JSON report. */
async function runMocha(): Promise<{ stats: { passes: number; failures: number }; passes: Array<{ title: string }> }> {
  const result = await runNode(project, [MOCHA, '--reporter', 'json', '--timeout', '5000'], {
    ...process.env,
    NODE_PATH: NODE_MODULES,
  });
  return JSON.parse(result.stdout) as Awaited<ReturnType<typeof runMocha>>;
}

describe('a project made by rest-tool 0.5, unchanged', () => {
  it('validates: exit 0, warning only of the validationSchema that only documentation reads, as --check says', async () => {
    const result = await runTool(project, ['validate']);
    expect(result).toEqual({
      code: 0,
      stdout: 'the project is valid: 3 services\n',
      stderr: `rest-tool: warning: ${DANGLING_SCHEMA}\n`,
    });
    const check = await runMockCheck(project);
    expect(check.code).toBe(0);
    expect(check.stderr).toBe(`restbus-mock: warning: ${DANGLING_SCHEMA}\n`);
  });

  it('exports its three services as OpenAPI: every method, under serviceUrlPrefix', async () => {
    const result = await runTool(project, ['export-oas', '-o', 'api.yml']);
    expect(result.code).toBe(0);
    const document = parse(await readFile(join(project, 'api.yml'), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(document.paths).map(([path, item]) => [path, Object.keys(item).sort()]);
    expect(Object.fromEntries(operations)).toEqual({
      '/rest/monitoring/isAlive': ['get'],
      '/rest/customers': ['get', 'post'],
      '/rest/customers/{id}': ['delete', 'get', 'put'],
    });
  });

  it('is served: its own implementations answer with the Content-Type they set, and the listening line came once', async () => {
    expect(stdout.match(new RegExp(LISTENING.source, 'gm'))).toHaveLength(1);
    const alive = await fetch(`${baseUrl}/monitoring/isAlive`);
    expect(alive.headers.get('content-type')).toBe('application/json');
    expect(alive.headers.get('x-application-api-version')).toBe('v0.0.1');
    expect(await alive.text()).toBe('true\n');
    const customers = await fetch(`${baseUrl}/customers`);
    expect(customers.headers.get('x-mock-warning')).toBeNull();
    expect(await customers.json()).toEqual([
      { id: 1, name: 'Acme Ltd.' },
      { id: 2, name: 'Globex' },
    ]);
  });

  it('is documented with its own templates/docs, as rest-tool 0.5 rendered them', async () => {
    const result = await runTool(project, ['docs', '--update'], generators);
    // The upstream project names a validation schema it never shipped: said, and the docs are still written.
    expect(result).toMatchObject({
      code: 0,
      stderr:
        'rest-tool: warning: services/customers/service.yml:26: /methods/GET/responses/0/validationSchema: the file getCustomers-responseBody-validationSchema.json does not exist (only documentation and generated tests read it)\n',
    });
    const docs = join(project, 'docs');
    const index = await readFile(join(docs, 'index.html'), 'utf8');
    expect(index).toContain('<h1>crm-api - v0.0.1</h1>');
    expect(index).toContain('<li><a href="services/customers/customer/service.html">Customer</a></li>');
    expect(index).toMatch(/Last update: \w{3} \w{3} \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT/);

    const page = await readFile(join(docs, 'services/customers/customer/service.html'), 'utf8');
    // relPath leads from the page up to docs/; the menu, the partials by file name, the sections of the stack.
    expect(page).toContain('<link href="../../../stylesheets/screen.css"');
    expect(page).toContain('<li><a href="../../../services/monitoring/isAlive/service.html">Monitoring that server');
    expect(page).toContain('<div class="method DELETE-method">DELETE</div>');
    expect(page).toContain('<div class="uriTemplate">/rest/customers/{id}</div>');
    expect(page).toContain('<td>id</td><td>URL</td><td>number</td><td>1</td><td>true</td><td><p>The <em>id</em>');
    expect(page).toContain('<h5>404 - No customer has this id</h5>');
    expect(page).toContain('<a href="../../..//services/customers/customer/getCustomer-responseBody.json">');
    expect(page).toContain('<h5>Cookies: <span class="notDefined">Not Defined</span></h5>');
    expect(page).toContain('<p>template: testPutMethod.mustache, expected status: 200</p>');
    // What the pages link to and the folders upstream copied are there; none of our own pages' files.
    const written = await readdir(docs, { recursive: true });
    expect(written).toEqual(
      expect.arrayContaining([
        'README.md',
        'stylesheets/screen.css',
        'js/restapidoc.js',
        'services/customers/customer/getCustomer-responseBody.json',
        'services/monitoring/isAlive/service.html',
      ]),
    );
    expect(written).not.toContain('assets');
    // Unchanged inputs, unchanged pages: the second update writes nothing.
    expect((await runTool(project, ['docs', '--update'], generators)).stdout).toBe(
      'wrote 0 documentation files into docs/\n',
    );
  });

  it('gets mocha tests from its templates/test that pass against the mock server, and fail without it', async () => {
    const config = join(project, 'config.yml');
    const original = await readFile(config, 'utf8');
    await writeFile(config, original.replace('baseUrl: http://localhost:3007/rest', `baseUrl: ${baseUrl}`));
    const result = await runTool(project, ['test', '--update'], generators);
    expect(result.stdout).toBe(`wrote 6 test files into test/\nthe tests call ${baseUrl} (baseUrl in config.yml)\n`);
    expect((await readdir(join(project, 'test'))).sort()).toEqual([
      'Create one instance of Customer.js',
      'Delete Customer.js',
      'Get Customer.js',
      'Get Customers.js',
      'Get Monitoring Is Alive.js',
      'Update Customer.js',
    ]);
    const passing = await runMocha();
    expect(passing.stats).toMatchObject({ passes: 6, failures: 0 });
    expect(passing.passes.map((test) => test.title).sort()).toEqual([
      'should Successfully checks if server is alive',
      'should Successfully creates a customer',
      'should Successfully deletes the customer',
      'should Successfully retrieves one customer',
      'should Successfully retrieves the customers',
      'should Successfully updates a customer',
    ]);

    // The same tests pointed at a port nobody listens on: each one fails.
    for (const file of await readdir(join(project, 'test'))) {
      const path = join(project, 'test', file);
      await writeFile(path, (await readFile(path, 'utf8')).replace(baseUrl, 'http://127.0.0.1:9/rest'));
    }
    expect((await runMocha()).stats).toMatchObject({ passes: 0, failures: 6 });
  });
});
