import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { loadProject } from './load-project';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'restbus-not-a-project-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

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
});
