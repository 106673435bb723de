import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { loadConfig } from '@restbus/infra';
import { findInvalidSettings } from '@restbus/infra/testing';
import { sampleFiles, writeProject } from '../__tests__/sample-project';
import { mockProgram, recordProgram, type MockCommandLine } from './mock-program';
import { MOCK_MAIN, runMockMain } from '../__tests__/run-mock-main';

let project: string;
beforeAll(async () => {
  if (!existsSync(MOCK_MAIN)) throw new Error(`${MOCK_MAIN} is missing: run npm run build before these tests`);
  project = await writeProject(sampleFiles());
});
afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe("restbus-mock's command line", () => {
  it('documents --log-level and --log-format in its help, and exits 0', async () => {
    const help = await runMockMain(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('-l, --log-level <level>');
    expect(help.stdout).toContain('--log-format <format>');
  });

  it.each([
    ['an unknown option', ['--projekt', '.']],
    ['a second environment', ['development', 'secured']],
    ['a port that is not a number', ['--port', 'abc']],
    ['a log level it does not know', ['--log-level', 'loud']],
  ])('exits 2 for %s', async (_case, args) => {
    const result = await runMockMain(['--project', project, ...args]);
    expect(result.code).toBe(2);
  });

  it('documents its HTTP limits in its help, and refuses a timeout that is not a number with exit 2', async () => {
    const help = await runMockMain(['--help']);
    for (const flag of [
      '--body-limit <bytes>',
      '--headers-timeout <ms>',
      '--request-timeout <ms>',
      '--max-connections <n>',
    ]) {
      expect(help.stdout).toContain(flag);
    }
    const result = await runMockMain(['--project', project, '--request-timeout', 'soon']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--request-timeout / MOCK_REQUEST_TIMEOUT_MS');
  });

  it('takes the log format from LOG_FORMAT', async () => {
    const child = spawn(process.execPath, [MOCK_MAIN, '--project', project, '--port', '0', '--host', '127.0.0.1'], {
      env: { ...process.env, LOG_FORMAT: 'pretty' },
    });
    const lines = createInterface({ input: child.stdout });
    const serving = await new Promise<string>((found) =>
      lines.on('line', (line) => {
        if (line.includes('serving')) found(line);
      }),
    );
    const exited = new Promise((done) => child.on('close', done));
    child.kill('SIGTERM');
    await exited;
    expect(serving).toMatch(/^\[[\d:.]+\] INFO: mock-server: serving \{"url":"http:\/\/127\.0\.0\.1:\d+"/);
  });

  it('takes --strict, or MOCK_STRICT, as a boolean that is false by default, and documents it in its help', async () => {
    const read = (argv: string[], env: Record<string, string> = {}) =>
      loadConfig<MockCommandLine>(mockProgram, { argv, env }).strict;
    expect(read([])).toBe(false);
    expect(read(['--strict'])).toBe(true);
    expect(read([], { MOCK_STRICT: 'true' })).toBe(true);
    expect(read([], { MOCK_STRICT: 'false' })).toBe(false);
    expect(() => read([], { MOCK_STRICT: 'sometimes' })).toThrow(/--strict \/ MOCK_STRICT: must be boolean/);
    const help = await runMockMain(['--help']);
    // commander wraps the descriptions to the widest flag: read the help as words, not as its lines.
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('--strict answer 500 where an implementation cannot be loaded');
  });
});

describe("restbus-mock's settings schemas", () => {
  it('are valid JSON schemas, for serving and for recording (loadConfig compiles them unchecked)', () => {
    expect([...findInvalidSettings(mockProgram), ...findInvalidSettings(recordProgram)]).toEqual([]);
  });
});
