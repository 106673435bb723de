import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateDocs } from '../docs';
import { generateTests } from '../testgen';
import { makeTempDir, runTool, runToolProcess, snapshotTree, type RunResult } from './tool-helpers';

describe('the rest-tool command line', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  const results: Record<string, RunResult> = {};
  // Real processes where what a shell sees matters (exit codes, stderr, no stack trace): started together, since each
  // one compiles the sources; the rest runs in this process.
  const processes: Record<string, string[]> = {
    version: ['-V'],
    unknownCommand: ['crate', 'demo'],
    unknownOption: ['add', '--nmae', 'x'],
    failing: ['validate'],
  };
  const inProcess: Record<string, string[]> = {
    help: ['-h'],
    addHelp: ['add', '-h'],
    nothing: [],
    excessArgument: ['create', 'a', 'b'],
    missingArgument: ['create'],
    missingOption: ['add', '-u', '/x', '-n', 'X'],
    missingOptionValue: ['export-oas', '-o'],
    badOptionValue: ['add', '-t', 'THING', '-p', '/x', '-u', '/x', '-n', 'X'],
    docsWithoutUpdate: ['docs'],
    created: ['create', 'demo'],
  };

  beforeAll(async () => {
    temp = await makeTempDir();
    await Promise.all([
      ...Object.entries(processes).map(async ([name, args]) => {
        results[name] = await runToolProcess(temp.dir, args);
      }),
      ...Object.entries(inProcess).map(async ([name, args]) => {
        results[name] = await runTool(temp.dir, args);
      }),
    ]);
  });
  afterAll(() => temp.remove());

  it('prints the package version with -V and exits 0', async () => {
    const { version } = JSON.parse(await readFile(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(results.version).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('lists every command with -h', () => {
    expect(results.help.code).toBe(0);
    for (const command of ['create', 'add', 'add-bulk', 'docs', 'test', 'validate', 'export-oas']) {
      expect(results.help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
  });

  it('lists every option of a command and its default with <command> -h', () => {
    const help = results.addHelp.stdout.replace(/\s+/g, ' ');
    for (const flag of ['-t, --type', '-p, --path', '-u, --uriTemplate', '-n, --name', '-d, --desc', '-c, --config']) {
      expect(help).toContain(flag);
    }
    expect(help).toContain('(default: "RESOURCE")');
    expect(help).toContain('(default: "config.yml")');
    expect(help).toContain('(default: "This is the description of the service")');
  });

  it('shows the help on stderr and exits 2 without a command', () => {
    expect(results.nothing.code).toBe(2);
    expect(results.nothing.stderr).toContain('Usage: rest-tool');
  });

  it('exits 2 with a suggestion on an unknown command or option', () => {
    expect(results.unknownCommand).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('(Did you mean create?)'),
    });
    expect(results.unknownOption).toMatchObject({ code: 2, stderr: expect.stringContaining('(Did you mean --name?)') });
    expect(results.excessArgument.code).toBe(2);
    expect(results.docsWithoutUpdate).toMatchObject({ code: 2, stderr: expect.stringContaining('-u/--update') });
  });

  it('exits 2 on a missing argument, a missing option, an option without its value and a bad option value', () => {
    expect(results.missingArgument).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: missing required argument 'project-name'\n",
    });
    expect(results.missingOption).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: missing required option -p, --path\n',
    });
    expect(results.missingOptionValue).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: option '-o, --output <file>' argument missing\n",
    });
    expect(results.badOptionValue).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("argument 'THING' is invalid. must be one of OPERATION, COLLECTION, RESOURCE."),
    });
  });

  it('exits 1 with one line per problem and no stack trace when a command fails', () => {
    expect(results.failing.code).toBe(1);
    expect(results.failing.stderr).toBe(
      'rest-tool: not a project folder (no config.yml in the current folder): run rest-tool in a project folder, name its config.yml with -c, or make one with rest-tool create <name>\n',
    );
  });

  it('exits 0 when a command succeeds', () => {
    expect(results.created).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('rest-tool outside a project folder', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeAll(async () => {
    temp = await makeTempDir();
  });
  afterAll(() => temp.remove());

  it.each([
    ['validate'],
    ['docs', '-u'],
    ['test', '-u'],
    ['add', '-p', '/x', '-u', '/x', '-n', 'X'],
    ['add-bulk', '-s', 'services.json'],
    ['export-oas'],
  ])('%s … says so in one line and exits 1, writing nothing', async (...args) => {
    const result = await runTool(temp.dir, args, { generateDocs, generateTests });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'rest-tool: not a project folder (no config.yml in the current folder): run rest-tool in a project folder, name its config.yml with -c, or make one with rest-tool create <name>\n',
    });
    expect(await snapshotTree(temp.dir)).toEqual({});
  });
});
