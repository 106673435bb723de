import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Project } from '../project/load-project';

export type ImplementationFunction = (request: unknown, response: unknown, serviceDescriptor: unknown) => unknown;

/** What `<module>.<function>` resolved to: the function, or why there is none (the service then answers 500). */
export type Resolved = { ok: true; fn: ImplementationFunction } | { ok: false; reason: string };

export interface Implementations {
  resolve(reference: string): Resolved;
  /** One line per module that failed to load or function that is missing, for the startup report. */
  problems: string[];
}

/**
 * Loads `server/<module>.js` for every module a descriptor names, plus `api` (loaded by default, as upstream did).
 * Only module names the schema allows reach here (`[\w-]+`), so a name cannot walk out of `server/`. Modules are
 * required afresh on every load, so that a hot reload sees edited code.
 */
export function loadImplementations(project: Project): Implementations {
  const serverDir = join(project.root, 'server');
  const references = new Set<string>();
  for (const { descriptor } of project.services) {
    for (const method of Object.values(descriptor.methods)) {
      if (typeof method.implementation === 'string') references.add(method.implementation);
    }
  }
  const moduleNames = new Set(['api', ...[...references].map((reference) => reference.split('.')[0])]);
  const modules = new Map<string, { ok: true; exports: Record<string, unknown> } | { ok: false; reason: string }>();
  const problems: string[] = [];
  for (const name of moduleNames) {
    const file = join(serverDir, `${name}.js`);
    if (!existsSync(file)) {
      if (name !== 'api') {
        modules.set(name, { ok: false, reason: `the module server/${name}.js does not exist` });
        problems.push(`server/${name}.js: no such module`);
      }
      continue;
    }
    try {
      // Node's own require for the project's CommonJS files (not a bundler's or a test runner's registry), with
      // the cached copy dropped so that a reload runs the edited code.
      const load = createRequire(file);
      delete load.cache[file];
      modules.set(name, { ok: true, exports: load(file) as Record<string, unknown> });
    } catch (err) {
      const message = (err as Error).message?.split('\n')[0] ?? String(err);
      modules.set(name, { ok: false, reason: `the module server/${name}.js failed to load: ${message}` });
      problems.push(`server/${name}.js: failed to load: ${message}`);
    }
  }
  const resolved = new Map<string, Resolved>();
  for (const reference of references) {
    const [moduleName, functionName] = reference.split('.');
    const loaded = modules.get(moduleName);
    if (!loaded?.ok) {
      resolved.set(reference, { ok: false, reason: loaded?.reason ?? `the module server/${moduleName}.js is missing` });
      continue;
    }
    const fn = loaded.exports[functionName];
    if (typeof fn === 'function') {
      resolved.set(reference, { ok: true, fn: fn as ImplementationFunction });
    } else {
      resolved.set(reference, {
        ok: false,
        reason: `the module server/${moduleName}.js has no function ${functionName}`,
      });
      problems.push(`server/${moduleName}.js: no exported function ${functionName} (named by ${reference})`);
    }
  }
  return {
    resolve: (reference) => resolved.get(reference) ?? { ok: false, reason: `${reference} was not loaded` },
    problems,
  };
}
