import { basename, dirname, join, resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { loadProject, type Project } from '@restbus/project-format';

export interface ToolProject extends Project {
  /** Where the listed services' folders are: `<restapiRoot>/<servicesRoot>`, absolute. */
  servicesDir: string;
}

/**
 * Loads and validates a project with the loader the mock server uses (@restbus/project-format), so `docs` and `test`
 * refuse exactly what the mock server refuses, with the same messages. `configFile` may point at the `config.yml` of a project in another folder;
 * a config file by another name is refused: the mock server only ever reads `config.yml`, so documentation or tests
 * made from another file would describe an API the mock server does not serve.
 */
export async function readProject(options: { projectDir: string; configFile?: string }): Promise<ToolProject> {
  const configPath = resolve(options.projectDir, options.configFile ?? 'config.yml');
  if (basename(configPath) !== 'config.yml') {
    throw new RestbusError(
      'PROJECT_INVALID',
      `${options.configFile}: the project config must be named config.yml (the mock server reads no other name)`,
    );
  }
  const projectDir =
    configPath === resolve(options.projectDir, 'config.yml') ? options.projectDir : dirname(configPath);
  const project = await loadProject({ projectDir });
  const loadedConfig = join(project.environment.restapiRoot, 'config.yml');
  if (options.configFile !== undefined && loadedConfig !== configPath) {
    throw new RestbusError(
      'PROJECT_INVALID',
      `${options.configFile}: server/config.yml (restapiRoot) points the project at ${loadedConfig} instead`,
    );
  }
  return { ...project, servicesDir: resolve(project.environment.restapiRoot, project.config.servicesRoot) };
}
