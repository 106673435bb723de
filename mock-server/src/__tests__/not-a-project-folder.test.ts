import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MOCK_MAIN, runMockMain } from './run-mock-main';

// The built program, as a newcomer runs it in the wrong folder.
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'restbus-not-a-project-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('restbus-mock in a folder that is not a project', () => {
  it.each([[['--check']], [[]]])('says so on stderr and exits 1 when run as restbus-mock %j', async (args) => {
    if (!existsSync(MOCK_MAIN)) throw new Error(`${MOCK_MAIN} is missing: run npm run build before these tests`);
    const dir = await mkdtemp(join(root, 'cwd-'));
    expect(await runMockMain(args, {}, dir)).toEqual({
      code: 1,
      stdout: '',
      stderr: `restbus-mock: not a project folder (no config.yml in ${dir})\n`,
    });
  });
});
