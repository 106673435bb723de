import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RestbusError } from '@restbus/infra';

const isFile = (path: string): Promise<boolean> =>
  stat(path).then(
    (info) => info.isFile(),
    () => false,
  );

/**
 * Refuses a folder that holds neither `config.yml` nor `server/config.yml` with one line a newcomer understands,
 * instead of the first file the loader happens to miss. A folder with only `server/config.yml` still passes: its
 * `restapiRoot` may put the project's config.yml elsewhere.
 */
export async function assertProjectFolder(dir: string): Promise<void> {
  if ((await isFile(join(dir, 'config.yml'))) || (await isFile(join(dir, 'server', 'config.yml')))) return;
  throw new RestbusError('PROJECT_INVALID', `not a project folder (no config.yml in ${dir})`);
}
