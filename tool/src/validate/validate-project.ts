import { dirname, resolve } from 'node:path';
import type { Project } from '@restbus/project-format';
import { RestbusError } from '@restbus/infra';
import { checkProject } from '@restbus/mock-server/check';
import { assertConfigFolder } from '../project/project-config';
import { findPortMismatches } from './find-port-mismatches';

export interface ProjectInspection {
  project: Project;
  projectDir: string;
  /** Documentation-only problems and notices: reported, and errors only with `strict`. */
  warnings: string[];
}

/**
 * Checks a project exactly as `restbus-mock --check` does (checkProject: the files, the files its descriptors
 * name, the modules and functions they name). What stops serving is an error; what only documentation and
 * generated tests read is a warning, an error too with `strict`. Any error: one PROJECT_INVALID listing them all.
 */
export async function inspectProject(options: {
  cwd: string;
  configFile: string;
  strict?: boolean;
}): Promise<ProjectInspection> {
  const projectDir = dirname(resolve(options.cwd, options.configFile));
  await assertConfigFolder(options.cwd, options.configFile);
  const { project, warnings } = await checkProject({ projectDir, strict: options.strict });
  return { project, projectDir, warnings };
}

export interface ValidationReport {
  root: string;
  services: number;
  environment: string;
  warnings: string[];
}

/**
 * `rest-tool validate`: the inspection, summed up, and whether the project is served where its generated tests and
 * docs call it (findPortMismatches: warnings, errors with `strict`).
 */
export async function validateProject(options: {
  cwd: string;
  configFile: string;
  strict?: boolean;
}): Promise<ValidationReport> {
  const { project, warnings } = await inspectProject(options);
  const ports = await findPortMismatches(project);
  if (options.strict && ports.length) {
    throw new RestbusError('PROJECT_INVALID', ports.map((warning) => `${warning} (an error with --strict)`).join('\n'));
  }
  return {
    root: project.root,
    services: project.services.length,
    environment: project.environment.name,
    warnings: [...warnings, ...ports],
  };
}
