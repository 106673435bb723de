import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isJsonObject, type JsonObject } from '@restbus/infra';
import { isInside } from './is-inside';
import type { Project } from './load-project';

/** A file a descriptor names, with the JSON pointer of the reference and whether serving needs it. */
export interface Reference {
  pointer: string;
  file: string;
  /** What the mock server answers with; the other references feed documentation and generated tests only. */
  served: boolean;
}

export interface ReferenceFindings {
  /** Problems that stop a route from being served as described: a missing mock file, a file outside the project. */
  errors: string[];
  /** Files only documentation and tests read (validation schemas, request and test-case bodies). */
  warnings: string[];
}

/** Every mock body, validation schema and test body a descriptor names: the one answer to "which files?". */
export function listReferencedFiles(descriptor: JsonObject): Reference[] {
  const references: Reference[] = [];
  const add = (pointer: string, value: unknown, served: boolean): void => {
    if (typeof value === 'string') references.push({ pointer, file: value, served });
  };
  for (const [name, method] of Object.entries(isJsonObject(descriptor.methods) ? descriptor.methods : {})) {
    if (!isJsonObject(method)) continue;
    const base = `/methods/${name}`;
    if (isJsonObject(method.request)) {
      add(`${base}/request/mockBody`, method.request.mockBody, false);
      add(`${base}/request/validationSchema`, method.request.validationSchema, false);
    }
    (Array.isArray(method.responses) ? method.responses : []).forEach((response: unknown, index) => {
      if (!isJsonObject(response)) return;
      add(`${base}/responses/${index}/mockBody`, response.mockBody, true);
      add(`${base}/responses/${index}/validationSchema`, response.validationSchema, false);
    });
    (Array.isArray(method.testCases) ? method.testCases : []).forEach((testCase: unknown, index) => {
      if (!isJsonObject(testCase)) return;
      for (const part of ['request', 'response']) {
        const value = testCase[part];
        if (!isJsonObject(value)) continue;
        for (const key of ['mockBody', 'body', 'validationSchema']) {
          add(`${base}/testCases/${index}/${part}/${key}`, value[key], false);
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

/**
 * What loading does not check: that the files descriptors name exist inside the project (implementation modules are
 * loadImplementations' to check: it loads them). A file serving needs is an error; one only documentation and generated tests read
 * (a dangling `validationSchema`, as projects made with rest-tool often have) is a warning. A reference that leads
 * outside the project is an error whatever reads it.
 */
export async function checkReferencedFiles(project: Project): Promise<ReferenceFindings> {
  const findings: ReferenceFindings = { errors: [], warnings: [] };
  const servicesDir = join(project.environment.restapiRoot, project.config.servicesRoot);
  for (const service of project.services) {
    const say = (list: string[], pointer: string, message: string): void => {
      list.push(`${service.file}:${service.lineOf(pointer)}: ${pointer}: ${message}`);
    };
    const serviceDir = join(servicesDir, service.path);
    for (const reference of listReferencedFiles(service.descriptor)) {
      const file = resolve(serviceDir, reference.file);
      if (!isInside(project.environment.restapiRoot, file)) {
        say(findings.errors, reference.pointer, `${reference.file} is outside the project`);
      } else if (!(await isFile(file))) {
        const why = reference.served ? '' : ' (only documentation and generated tests read it)';
        say(
          reference.served ? findings.errors : findings.warnings,
          reference.pointer,
          `the file ${reference.file} does not exist${why}`,
        );
      }
    }
  }
  return findings;
}
