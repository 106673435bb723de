import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { loadProject } from './load-project';

// The built program, as a newcomer runs it in the wrong folder (jest's global setup builds it).
const MAIN = resolve(__dirname, '../../dist/main.js');

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'restbus-not-a-project-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function runMock(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('a folder that is not a project', () => {
  it('is refused by loadProject with one line naming the folder', async () => {
    const dir = await mkdtemp(join(root, 'empty-'));
    const err = await loadProject({ projectDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RestbusError);
    expect(err).toMatchObject({ code: 'PROJECT_INVALID', message: `not a project folder (no config.yml in ${dir})` });
  });

  it('still passes when it has server/config.yml, whose restapiRoot may put config.yml elsewhere', async () => {
    const dir = await mkdtemp(join(root, 'server-only-'));
    await mkdir(join(dir, 'server'));
    await writeFile(join(dir, 'server', 'config.yml'), 'environments:\n  default:\n    restapiRoot: ../api\n');
    const err = await loadProject({ projectDir: dir }).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: 'api/config.yml: cannot read: no such file' });
  });

  it.each([[['--check']], [[]]])('makes restbus-mock %j say so on stderr and exit 1', async (args) => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build before these tests`);
    const dir = await mkdtemp(join(root, 'cwd-'));
    expect(await runMock(dir, args)).toEqual({
      code: 1,
      stdout: '',
      stderr: `restbus-mock: not a project folder (no config.yml in ${dir})\n`,
    });
  });
});
