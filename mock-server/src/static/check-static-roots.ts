import type { Project } from '../project/load-project';
import { createProjectStatics } from './create-project-statics';

/**
 * What serving the project's static folders would warn about, for checkers (`--check`, `rest-tool validate`): a
 * folder that resolves outside the project (not served), a folder that serves the server folder (its config and
 * sources left out). Nothing is served or kept.
 */
export function checkStaticRoots(project: Project): string[] {
  const warnings: string[] = [];
  createProjectStatics(project, (message) => warnings.push(message));
  return warnings;
}
