import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

// The service as users run it; jest's global setup builds it.
const MAIN = resolve(__dirname, '../../dist/main.js');

function run(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [MAIN, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build before these tests`);
});

describe('systems-service on the command line', () => {
  it('documents --log-level and --log-format in its help', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('-l, --log-level <level>');
    expect(help.stdout).toContain('--log-format <format>');
  });

  it('exits 2 for an option it does not know and for a log format it does not know', async () => {
    expect((await run(['--nope'])).code).toBe(2);
    const result = await run(['--log-format', 'plainText']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'systems-service: invalid configuration: --log-format / LOG_FORMAT: must be one of pretty|json (got "plainText")\n',
    );
  });
});
