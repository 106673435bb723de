import { dirname, resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { checkReferencedFiles, checkStaticRoots, loadProject, type Project } from '@restbus/mock-server';

export interface ProjectInspection {
  project: Project;
  projectDir: string;
  /** Documentation-only problems and notices: reported, and errors only with `strict`. */
  warnings: string[];
}

/**
 * Checks a project as the mock server loads it (server/config.yml, config.yml, every service.yml against the shared
 * schemas, no route served twice), then the files its descriptors name. What stops serving is an error; what only
 * documentation and generated tests read is a warning, an error too with `strict`. Any error: one PROJECT_INVALID
 * error listing them all.
 */
export async function inspectProject(options: {
  cwd: string;
  configFile: string;
  strict?: boolean;
}): Promise<ProjectInspection> {
  const projectDir = dirname(resolve(options.cwd, options.configFile));
  const project = await loadProject({ projectDir });
  const { errors, warnings: fileWarnings } = await checkReferencedFiles(project, projectDir);
  const warnings = [...project.warnings, ...checkStaticRoots(project), ...fileWarnings];
  const stopping = options.strict
    ? [...errors, ...warnings.map((warning) => `${warning} (an error with --strict)`)]
    : errors;
  if (stopping.length) {
    // The warnings come along: whoever fixes the errors sees everything at once.
    const notices = options.strict ? [] : warnings.map((warning) => `warning: ${warning}`);
    throw new RestbusError('PROJECT_INVALID', [...stopping, ...notices].join('\n'));
  }
  return { project, projectDir, warnings };
}

export interface ValidationReport {
  root: string;
  services: number;
  environment: string;
  warnings: string[];
}

/** `rest-tool validate`: the inspection, summed up. */
export async function validateProject(options: {
  cwd: string;
  configFile: string;
  strict?: boolean;
}): Promise<ValidationReport> {
  const { project, warnings } = await inspectProject(options);
  return {
    root: project.root,
    services: project.services.length,
    environment: project.environment.name,
    warnings,
  };
}
