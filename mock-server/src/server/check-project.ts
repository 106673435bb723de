import { createLogger } from '@restbus/infra';
import { loadProject } from '../project/load-project';
import { buildGeneration } from './build-generation';

/**
 * What `--check` reports: the project's files must be valid (else loadProject throws, listing every problem), and
 * every module and function the descriptors name must load; at serving time their services would only answer from
 * a fallback (the OK mock file or the descriptor, with X-Mock-Warning), or 500 with --strict.
 */
export async function checkProject(options: {
  projectDir: string;
  environment?: string;
}): Promise<{ problems: string[]; warnings: string[]; summary: string }> {
  const project = await loadProject(options);
  const generation = buildGeneration(project, createLogger({ name: 'restbus-mock', level: 'silent' }));
  return {
    problems: generation.problems,
    warnings: [...project.warnings, ...generation.warnings],
    summary: `${project.root} is valid: ${project.services.length} services, environment ${project.environment.name}`,
  };
}
