import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { checkStaticRoots, loadProject, type Project } from '@restbus/mock-server';
import { isInside } from '../project/paths';

type Json = Record<string, unknown>;

/** A file a descriptor refers to, with the JSON pointer of the reference. */
interface Reference {
  pointer: string;
  file: string;
}

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);

/** Every mock body, validation schema and test body a descriptor names. */
function listReferences(descriptor: Json): Reference[] {
  const references: Reference[] = [];
  const add = (pointer: string, value: unknown): void => {
    if (typeof value === 'string') references.push({ pointer, file: value });
  };
  for (const [name, method] of Object.entries((descriptor.methods as Json | undefined) ?? {})) {
    if (!isObject(method)) continue;
    const base = `/methods/${name}`;
    if (isObject(method.request)) add(`${base}/request/mockBody`, method.request.mockBody);
    (Array.isArray(method.responses) ? method.responses : []).forEach((response: unknown, index) => {
      if (!isObject(response)) return;
      add(`${base}/responses/${index}/mockBody`, response.mockBody);
      add(`${base}/responses/${index}/validationSchema`, response.validationSchema);
    });
    (Array.isArray(method.testCases) ? method.testCases : []).forEach((testCase: unknown, index) => {
      if (!isObject(testCase)) return;
      for (const part of ['request', 'response']) {
        const value = testCase[part];
        if (!isObject(value)) continue;
        for (const key of ['mockBody', 'body', 'validationSchema']) {
          add(`${base}/testCases/${index}/${part}/${key}`, value[key]);
        }
      }
    });
  }
  return references;
}

const isFile = (path: string): Promise<boolean> =>
  stat(path).then(
    (info) => info.isFile(),
    () => false,
  );

/** What loading does not check: that referenced files and implementation modules exist. */
export async function checkProjectFiles(project: Project, projectDir: string): Promise<string[]> {
  const problems: string[] = [];
  const servicesDir = join(project.environment.restapiRoot, project.config.servicesRoot);
  for (const service of project.services) {
    const report = (pointer: string, message: string): void => {
      problems.push(`${service.file}:${service.lineOf(pointer)}: ${pointer}: ${message}`);
    };
    const serviceDir = join(servicesDir, service.path);
    for (const reference of listReferences(service.descriptor)) {
      const file = resolve(serviceDir, reference.file);
      if (!isInside(project.environment.restapiRoot, file))
        report(reference.pointer, `${reference.file} is outside the project`);
      else if (!(await isFile(file))) report(reference.pointer, `the file ${reference.file} does not exist`);
    }
    for (const [name, method] of Object.entries(service.descriptor.methods)) {
      const implementation = method.implementation;
      if (typeof implementation !== 'string') continue;
      const module = implementation.slice(0, implementation.indexOf('.'));
      if (!(await isFile(join(projectDir, 'server', `${module}.js`)))) {
        report(`/methods/${name}/implementation`, `server/${module}.js does not exist`);
      }
    }
  }
  return problems;
}

export interface ValidationReport {
  root: string;
  services: number;
  environment: string;
  warnings: string[];
}

/**
 * Checks a project as the mock server loads it (server/config.yml, config.yml, every service.yml against the shared
 * schemas, no route served twice), then that every file a descriptor names exists inside the project and every
 * implementation module is there. Any problem: one PROJECT_INVALID error listing them all.
 */
export async function validateProject(options: { cwd: string; configFile: string }): Promise<ValidationReport> {
  const projectDir = dirname(resolve(options.cwd, options.configFile));
  const project = await loadProject({ projectDir });
  const problems = await checkProjectFiles(project, projectDir);
  if (problems.length) throw new RestbusError('PROJECT_INVALID', problems.join('\n'));
  return {
    root: project.root,
    services: project.services.length,
    environment: project.environment.name,
    warnings: [...project.warnings, ...checkStaticRoots(project)],
  };
}
