import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '@restbus/infra';
import { startMockServer, type MockServer } from '@restbus/mock-server';
import { generateDocs } from '../docs';
import { generateTests } from '../testgen';
import { runGeneratedTests } from './run-generated-tests';
import { makeTempDir, runTool } from './tool-helpers';

const generators = { generateDocs, generateTests };

/** The project's generated tests (`node --test test/`'s, in one process), with the exit code and output. */
const runNodeTest = (cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> =>
  runGeneratedTests(cwd, 'test', env);

// The upstream smoke test (rest-tool 0.5.3 test/manual_test.sh), end to end on our tool and mock server.
describe('the upstream scenario', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let server: MockServer | undefined;
  beforeAll(async () => {
    temp = await makeTempDir();
  });
  afterAll(async () => {
    await server?.close();
    await temp.remove();
  });

  it('creates, adds three services and four in bulk, generates tests and docs, and the tests pass against the mock', async () => {
    const tool = async (cwd: string, args: string[]): Promise<string> => {
      const result = await runTool(cwd, args, generators);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
      return result.stdout;
    };
    await tool(temp.dir, ['create', 'test-api']);
    const project = join(temp.dir, 'test-api');
    await tool(project, ['add', '-t', 'COLLECTION', '-p', '/users', '-u', '/users', '-n', 'Users']);
    await tool(project, ['add', '-t', 'RESOURCE', '-p', '/users/user', '-u', '/users/{id}', '-n', 'User']);
    await tool(project, [
      'add',
      '-t',
      'OPERATION',
      '-p',
      '/filterUsers',
      '-u',
      '/filterUsers',
      '-n',
      'Complex user filtering',
    ]);
    await tool(project, ['add-bulk', '-s', join(__dirname, 'fixtures', 'services.json')]);
    expect(await tool(project, ['validate'])).toContain('is valid: 8 services');
    expect(await tool(project, ['test', '-u'])).toContain('wrote 15 test files');
    expect(await tool(project, ['docs', '-u'])).toMatch(/wrote \d+ documentation files/);
    // A second run keeps every test file (they may have been edited) and says so.
    expect(await tool(project, ['test', '-u'])).toContain('kept 15 existing files');

    server = await startMockServer({
      projectDir: project,
      port: 0,
      host: '127.0.0.1',
      watch: false,
      logger: createLogger({ name: 'mock', level: 'silent' }),
    });
    const run = await runNodeTest(project, { API_BASE_URL: `${server.url}/rest` });
    expect({ code: run.code, output: run.output }).toEqual({ code: 0, output: expect.stringMatching(/# pass 15\n/) });
    expect(run.output).toMatch(/# fail 0\n/);

    const docs = await fetch(`${server.url}/docs/index.html`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('test-api');
    expect(await readFile(join(project, 'docs', 'index.html'), 'utf8')).toContain('Complex user filtering');
  });
});
