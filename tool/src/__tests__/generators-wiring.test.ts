import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestbusError } from '@restbus/infra';
import type { Generators } from '../cli/program-deps';
import { runTool } from './tool-helpers';

describe('rest-tool docs and test', () => {
  const calls: Array<{ command: string; projectDir: string; configFile?: string; verbose: boolean }> = [];
  const generators: Generators = {
    generateDocs: async (options) => {
      calls.push({ command: 'docs', ...options, verbose: !!options.verbose });
      options.verbose?.('rendered index.html');
      return { written: 3, warnings: [] };
    },
    generateTests: async (options) => {
      calls.push({ command: 'test', ...options, verbose: !!options.verbose });
      return {
        written: ['test/a.mjs'],
        skipped: ['test/b.mjs'],
        warnings: ['services/a/service.yml: /methods/PUT/testCases/0: request body b.json does not exist'],
        baseUrl: 'http://localhost:3017/rest',
      };
    },
  };
  // The command context refuses a folder without config.yml before calling a generator: a real project folder.
  let work: string;
  let api: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'rest-tool-wiring-'));
    api = join(work, 'api');
    await mkdir(api);
    await writeFile(join(api, 'config.yml'), 'projectName: api\n');
  });
  afterAll(() => rm(work, { recursive: true, force: true }));
  beforeEach(() => {
    calls.length = 0;
  });

  it('hand the project of -c (relative to the current folder) to the generators, with -v progress and warnings on stderr, and say where the tests call', async () => {
    const docs = await runTool(work, ['docs', '-u', '-v', '-c', 'api/config.yml'], generators);
    expect(docs).toEqual({
      code: 0,
      stdout: 'rendered index.html\nwrote 3 documentation files into docs/\n',
      stderr: '',
    });
    const test = await runTool(api, ['test', '--update'], generators);
    expect(test.stdout).toBe(
      'wrote 1 test file into test/\nkept 1 existing file: test/b.mjs\n' +
        'the tests call http://localhost:3017/rest (baseUrl in config.yml)\n',
    );
    expect(test.stderr).toBe(
      'rest-tool: warning: services/a/service.yml: /methods/PUT/testCases/0: request body b.json does not exist\n',
    );
    expect(calls).toEqual([
      {
        command: 'docs',
        projectDir: api,
        configFile: join(api, 'config.yml'),
        verbose: true,
        force: false,
      },
      { command: 'test', projectDir: api, configFile: join(api, 'config.yml'), verbose: false },
    ]);
  });

  it('exit 1 with the generator’s problems, one line each', async () => {
    const failing: Generators = {
      ...generators,
      generateTests: () =>
        Promise.reject(new RestbusError('PROJECT_INVALID', 'config.yml:3: /a: bad\nx.yml:1: /: bad')),
    };
    const result = await runTool(api, ['test', '-u'], failing);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'rest-tool: config.yml:3: /a: bad\nrest-tool: x.yml:1: /: bad\n',
    });
  });

  it('exit 2 and call nothing without -u', async () => {
    expect((await runTool('/work', ['docs'], generators)).code).toBe(2);
    expect((await runTool('/work', ['test'], generators)).code).toBe(2);
    expect(calls).toEqual([]);
  });
});
