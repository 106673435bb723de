import { createLogger, RestbusError } from '@restbus/infra';
import { checkReferencedFiles, loadProject, type Project } from '@restbus/project-format';
import { buildGeneration } from './build-generation';

export interface ProjectCheck {
  project: Project;
  /** Notices that stop nothing: files only documentation and generated tests read, static folders, odd values. */
  warnings: string[];
}

/**
 * The one check of a project, for `restbus-mock --check` and `rest-tool validate` alike: its files must be valid
 * (loadProject), the files its descriptors name must be in the project, and every module and function they name
 * must load (at serving time their services would only answer from a fallback: the OK mock file or the
 * descriptor, with X-Mock-Warning, or 500 with --strict). What stops a service from being served as described is an
 * error; the rest are warnings, and errors too with `strict`. A module that fails to load only because a package it
 * requires is not installed is a warning: the project is sound, its `npm install` has not been run. Any error: one PROJECT_INVALID listing them all, the
 * warnings with them, so whoever fixes the errors sees everything at once.
 */
export async function checkProject(options: {
  projectDir: string;
  environment?: string;
  strict?: boolean;
  /** Also check what --validate needs: every request schema readable and compilable (default: the environment's). */
  validate?: boolean;
  /** Routes whose unusable request schema is a warning rather than an error (--validate-unchecked). */
  validateUnchecked?: readonly string[];
}): Promise<ProjectCheck> {
  const project = await loadProject(options);
  const files = await checkReferencedFiles(project);
  const generation = await buildGeneration(project, createLogger({ name: 'restbus-mock', level: 'silent' }), {
    validate: options.validate,
    validateUnchecked: options.validateUnchecked,
  });
  const errors = [...generation.problems, ...files.errors, ...generation.schemaProblems];
  const warnings = [
    ...project.warnings,
    ...generation.missingPackages,
    ...files.warnings,
    ...generation.warnings,
    ...generation.uncheckedBodies,
  ];
  const stopping = options.strict
    ? [...errors, ...warnings.map((warning) => `${warning} (an error with --strict)`)]
    : errors;
  if (stopping.length) {
    const notices = options.strict ? [] : warnings.map((warning) => `warning: ${warning}`);
    throw new RestbusError('PROJECT_INVALID', [...stopping, ...notices].join('\n'));
  }
  return { project, warnings };
}
