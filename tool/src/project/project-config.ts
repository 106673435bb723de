import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { isJsonObject, RestbusError } from '@restbus/infra';
import { assertProjectFolder, readYamlFile } from '@restbus/project-format';
import { showPath } from './show-path';

/** What `add` needs from a project's config.yml, with its text for editing. */
export interface ProjectConfig {
  /** The folder rest-tool runs in: messages name paths relative to it (showPath). */
  cwd: string;
  /** Absolute path of config.yml. */
  file: string;
  /** How messages name it (as the user gave it). */
  name: string;
  text: string;
  /** The folder of config.yml: the project root. */
  projectDir: string;
  /** Absolute folder of the service descriptors. */
  servicesDir: string;
  services: string[];
}

/**
 * Refuses a config.yml in a folder that is not a project, with one line instead of a missing file's name, naming the
 * folder as the user knows it and what to do. Another file name than config.yml is the user's own choice: a missing
 * one is reported by name when it is read.
 */
export async function assertConfigFolder(cwd: string, configFile: string): Promise<void> {
  const file = resolve(cwd, configFile);
  if (basename(file) !== 'config.yml') return;
  const dir = dirname(file);
  await assertProjectFolder(dir).catch(() => {
    const shown = showPath(cwd, dir);
    const where = shown === '.' ? 'the current folder' : shown;
    throw new RestbusError(
      'PROJECT_INVALID',
      `not a project folder (no config.yml in ${where}): run rest-tool in a project folder, ` +
        'name its config.yml with -c, or make one with rest-tool create <name>',
    );
  });
}

/**
 * Reads a project's config.yml for editing. Only what `add` relies on is checked here (servicesRoot and services);
 * `rest-tool validate` checks the whole project with the mock server's check (the project format's schemas).
 */
export async function readProjectConfig(cwd: string, configFile: string): Promise<ProjectConfig> {
  await assertConfigFolder(cwd, configFile);
  const file = resolve(cwd, configFile);
  const read = await readYamlFile(file, configFile);
  if (!read.ok) throw new RestbusError('PROJECT_INVALID', read.problems.join('\n'));
  const { value } = read.file;
  const problems: string[] = [];
  const at = (pointer: string, message: string): string =>
    `${configFile}:${read.file.lineOf(pointer)}: ${pointer || '/'}: ${message}`;
  if (!isJsonObject(value)) {
    throw new RestbusError('PROJECT_INVALID', at('', 'must be a mapping (projectName, servicesRoot, services, …)'));
  }
  const { servicesRoot, services } = value;
  if (typeof servicesRoot !== 'string') problems.push(at('/servicesRoot', 'must be a string'));
  const paths: string[] = [];
  if (!Array.isArray(services)) problems.push(at('/services', 'must be a list of service paths'));
  else {
    services.forEach((entry, index) => {
      if (typeof entry === 'string') paths.push(entry);
      else problems.push(at(`/services/${index}`, 'must be a string'));
    });
  }
  // A servicesRoot that is no string is among the problems.
  if (problems.length || typeof servicesRoot !== 'string')
    throw new RestbusError('PROJECT_INVALID', problems.join('\n'));
  const projectDir = dirname(file);
  return {
    cwd: resolve(cwd),
    file,
    name: configFile,
    // Read again as text: the edit keeps every byte that is not the new entries.
    text: await readFile(file, 'utf8'),
    projectDir,
    servicesDir: resolve(projectDir, servicesRoot),
    services: paths,
  };
}
