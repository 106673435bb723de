import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { appendServices } from '@restbus/project-format';
import type { ProjectConfig } from '../project/project-config';
import { siblingTempPath, writeFileAtomic } from '@restbus/project-format';
import type { PlannedService } from './plan-service';

/** Creates a folder and its missing parents; returns the topmost one it created (to remove on a rollback). */
async function makeParents(dir: string): Promise<string | undefined> {
  return (await mkdir(dir, { recursive: true })) ?? undefined;
}

/**
 * Writes planned services, then lists them in config.yml. Each service folder is filled under a temporary name beside
 * its final place and renamed into it, so a folder is either complete or absent. If anything fails (a write, the
 * config edit), every folder made so far is removed again and config.yml is left as it was.
 */
export async function writeServices(
  config: ProjectConfig,
  services: readonly PlannedService[],
  verbose: (line: string) => void = () => undefined,
): Promise<void> {
  // Computed before any write: an edit that cannot be made stops the run with nothing written.
  let text: string;
  try {
    text = appendServices(
      config.text,
      services.map((service) => service.entry),
    );
  } catch (err) {
    throw new RestbusError('PROJECT_INVALID', `${config.name}: cannot add to services: ${(err as Error).message}`);
  }
  const created: string[] = [];
  try {
    for (const service of services) {
      const parent = dirname(service.dir);
      const madeParent = await makeParents(parent);
      if (madeParent) created.push(madeParent);
      const staging = siblingTempPath(service.dir);
      await mkdir(staging);
      created.push(staging);
      for (const file of service.files) {
        await writeFile(join(staging, file.name), file.data, { flag: 'wx' });
        verbose(`wrote ${join(service.dir, file.name)}`);
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
    throw new RestbusError('INTERNAL', `nothing was added: ${(err as Error).message}`, { cause: err });
  }
}
