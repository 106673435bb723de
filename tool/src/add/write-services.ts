import { lstat, mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readErrorMessage, RestbusError } from '@restbus/infra';
import { appendServices, siblingTempPath, writeFileAtomic } from '@restbus/project-format';
import type { ProjectConfig } from '../project/project-config';
import { describeFileError } from '../project/describe-file-error';
import { showPath } from '../project/show-path';
import type { PlannedFile, PlannedService } from './plan-service';

/** Creates a folder and its missing parents; returns the topmost one it created (to remove on a rollback). */
async function makeParents(dir: string): Promise<string | undefined> {
  return (await mkdir(dir, { recursive: true })) ?? undefined;
}

/** Creates a file that must not exist yet (`wx`); `created` gets it once it is ours, even if writing it then fails. */
async function createFile(path: string, data: string | Buffer, created: string[]): Promise<void> {
  const handle = await open(path, 'wx');
  created.push(path);
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

/**
 * Writes planned services, then lists them in config.yml. A new service folder is filled under a temporary name beside
 * its final place and renamed into it, so a folder is either complete or absent. A folder that exists already (it
 * holds other services' folders: a COLLECTION /orders added after its RESOURCE /orders/order) gets the files beside
 * what it holds, each created only if absent, service.yml last. If anything fails (a write, the config edit),
 * everything made so far is removed again and config.yml is left as it was.
 */
export async function writeServices(
  config: ProjectConfig,
  services: readonly PlannedService[],
  verbose: (line: string) => void = () => undefined,
): Promise<void> {
  const show = (path: string): string => showPath(config.cwd, path);
  // Computed before any write: an edit that cannot be made stops the run with nothing written.
  let text: string;
  try {
    text = appendServices(
      config.text,
      services.map((service) => service.entry),
    );
  } catch (err) {
    throw new RestbusError('PROJECT_INVALID', `${config.name}: cannot add to services: ${readErrorMessage(err)}`);
  }
  const created: string[] = [];
  try {
    for (const service of services) {
      // Looked at now, not when planned: a service written before in this run may have made the folder.
      if ((await lstat(service.dir).catch(() => undefined))?.isDirectory()) {
        const descriptorLast = (file: PlannedFile): number => (file.name === 'service.yml' ? 1 : 0);
        for (const file of [...service.files].sort((a, b) => descriptorLast(a) - descriptorLast(b))) {
          await createFile(join(service.dir, file.name), file.data, created);
          verbose(`wrote ${show(join(service.dir, file.name))}`);
        }
        continue;
      }
      const madeParent = await makeParents(dirname(service.dir));
      if (madeParent) created.push(madeParent);
      const staging = siblingTempPath(service.dir);
      await mkdir(staging);
      created.push(staging);
      for (const file of service.files) {
        await writeFile(join(staging, file.name), file.data, { flag: 'wx' });
        verbose(`wrote ${show(join(service.dir, file.name))}`);
      }
      await rename(staging, service.dir);
      created[created.length - 1] = service.dir;
    }
    const mode = (await stat(config.file)).mode & 0o777;
    await writeFileAtomic(config.file, text, { mode });
    verbose(`listed ${services.map((service) => service.entry).join(', ')} in ${config.name}`);
  } catch (err) {
    for (const path of created.reverse()) await rm(path, { recursive: true, force: true });
    if (err instanceof RestbusError) throw err;
    throw new RestbusError('INTERNAL', `nothing was added: ${describeFileError(err, show)}`, { cause: err });
  }
}
