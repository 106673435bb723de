import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { readErrorCode, readErrorMessage, sendError, type Logger } from '@restbus/infra';
import type { Project } from '@restbus/project-format';

export type ImplementationFunction = (request: unknown, response: unknown, serviceDescriptor: unknown) => unknown;

/** A resolved implementation inside its deadline: it settles once the answer has begun (see callWithDeadline). */
export type DeadlinedFunction = (
  request: unknown,
  response: ServerResponse,
  serviceDescriptor: unknown,
) => Promise<void>;

/**
 * What `<module>.<function>` resolved to: the function, or why there is none (the service then answers from a
 * fallback, or 500 when strict; see createServiceRoutes). `reason` goes to clients: project-relative names only.
 */
export type Resolved = { ok: true; fn: DeadlinedFunction } | { ok: false; reason: string };

export interface Implementations {
  /** The function comes wrapped in its deadline (see callWithDeadline): callers only await it. */
  resolve(reference: string): Resolved;
  /** One line per module that failed to load or function that is missing, for the startup report. */
  problems: string[];
  /**
   * One line per module that failed to load only because a package it requires is not installed (a project made by
   * rest-tool 0.5 before `npm install`): the project is sound, its environment is not ready.
   */
  missingPackages: string[];
  /** The modules (`api`, …) that exist but failed to load: a syntax error, or a file caught half-written. */
  failedModules: string[];
}

export interface ImplementationOptions {
  /**
   * How long an implementation may take to start its answer. Default: the environment's `implementationTimeout`
   * (ms) when it is a positive integer, else DEFAULT_IMPLEMENTATION_TIMEOUT_MS.
   */
  timeoutMs?: number;
  /** Where a timeout and a failure after it are told; without one they are only answered. */
  logger?: Logger;
}

export const DEFAULT_IMPLEMENTATION_TIMEOUT_MS = 10_000;
/** The longest deadline: ten minutes, far beyond what a mock should take, short of holding a request for ever. */
export const MAX_IMPLEMENTATION_TIMEOUT_MS = 600_000;

/**
 * The deadline for a project: options first, then the environment's `implementationTimeout`, then the default. A
 * value that is not a positive whole number of ms is ignored; a longer one than the maximum is cut to it.
 */
export function selectImplementationTimeout(project: Project, options: ImplementationOptions = {}): number {
  const configured = options.timeoutMs ?? project.environment.implementationTimeout;
  if (typeof configured !== 'number' || !Number.isInteger(configured) || configured <= 0) {
    return DEFAULT_IMPLEMENTATION_TIMEOUT_MS;
  }
  return Math.min(configured, MAX_IMPLEMENTATION_TIMEOUT_MS);
}

// What a late answer would call; after the deadline's answer has ended they do nothing, because a second answer
// throws (ERR_HTTP_HEADERS_SENT) or emits 'error' (write after end) inside the implementation's own timer or
// callback, where nothing catches it and the process would stop.
const RESPONSE_WRITERS = [
  'setHeader',
  'appendHeader',
  'removeHeader',
  'writeHead',
  'flushHeaders',
  'write',
  'end',
  'sendFile',
] as const;

function dropLateWrites(response: ServerResponse): void {
  // By name through Reflect: express adds `sendFile`, which node's ServerResponse type does not know.
  for (const name of RESPONSE_WRITERS) {
    const original: unknown = Reflect.get(response, name);
    if (typeof original !== 'function') continue;
    Reflect.set(response, name, function (this: ServerResponse, ...args: unknown[]): unknown {
      if (response.writableEnded) return name === 'write' ? false : response;
      return Reflect.apply(original, this, args);
    });
  }
}

/**
 * Calls an implementation and waits until it has started to answer, has thrown or rejected (rethrown for the
 * caller), or the client is gone. A function may answer after it returned (callback style), so returning is not
 * answering. When the deadline comes first, the answer is `500 IMPLEMENTATION_TIMEOUT` and whatever the function
 * does later (an answer, a rejection) is dropped.
 */
export async function callWithDeadline(
  fn: ImplementationFunction,
  args: { request: unknown; response: ServerResponse; serviceDescriptor: unknown },
  deadline: { timeoutMs: number; reference: string; logger?: Logger },
): Promise<void> {
  const { response } = args;
  let settled = false;
  let timedOut = false;
  let resolveFinished!: (failure?: { err: unknown }) => void;
  const finished = new Promise<{ err: unknown } | undefined>((resolve) => (resolveFinished = resolve));
  const settle = (failure?: { err: unknown }): void => {
    settled = true;
    resolveFinished(failure);
  };
  const answered = (): void => settle();
  response.once('finish', answered);
  response.once('close', answered);
  const timer = setTimeout(() => {
    // Headers out means the answer has begun (a stream, say): it is the function's to finish.
    if (!response.headersSent) timedOut = true;
    settle();
  }, deadline.timeoutMs);

  try {
    const result = fn(args.request, response, args.serviceDescriptor);
    if (
      (typeof result === 'object' || typeof result === 'function') &&
      result !== null &&
      'then' in result &&
      typeof result.then === 'function'
    ) {
      Promise.resolve(result).then(
        () => {
          if (response.headersSent) settle();
        },
        (err: unknown) => {
          if (!settled) return settle({ err });
          // Its request is answered already: only the log can still say so.
          deadline.logger?.warn({ err, implementation: deadline.reference }, 'implementation failed after answering');
        },
      );
    } else if (response.headersSent) settle();
  } catch (err) {
    settle({ err });
  }

  const failure = await finished;
  clearTimeout(timer);
  response.off('finish', answered);
  response.off('close', answered);
  if (failure) throw failure.err;
  if (!timedOut) return;
  deadline.logger?.warn(
    { implementation: deadline.reference, timeoutMs: deadline.timeoutMs },
    'implementation did not answer in time',
  );
  dropLateWrites(response);
  sendError(
    response,
    'IMPLEMENTATION_TIMEOUT',
    `the implementation ${deadline.reference} did not answer within ${deadline.timeoutMs} ms`,
  );
}

/** An own, callable export: not one every object inherits (`constructor`, `toString`, `__proto__`...). */
function findOwnFunction(exports: unknown, name: string): ImplementationFunction | undefined {
  if ((typeof exports !== 'object' && typeof exports !== 'function') || exports === null) return undefined;
  if (!Object.hasOwn(exports, name)) return undefined;
  try {
    const value: unknown = Reflect.get(exports, name);
    if (typeof value !== 'function') return undefined;
    // Called detached, as `module.fn(...)` was not: `this` is undefined, as it always was here.
    return (request, response, serviceDescriptor) =>
      Reflect.apply(value, undefined, [request, response, serviceDescriptor]);
  } catch {
    // A getter that throws exports nothing callable.
    return undefined;
  }
}

/** The package a failed require was looking for, when that is why it failed; not a missing file of the project. */
function findMissingPackage(err: unknown): string | undefined {
  if (readErrorCode(err) !== 'MODULE_NOT_FOUND') return undefined;
  const wanted = /^Cannot find module '([^']+)'/.exec(readErrorMessage(err))?.[1];
  return wanted && !wanted.startsWith('.') && !isAbsolute(wanted) ? wanted : undefined;
}

/** The `module.function` references the project's methods name, and where each module is named (for a message that points at the line to fix). */
function findImplementationReferences(project: Project): { references: Set<string>; namedAt: Map<string, string[]> } {
  const references = new Set<string>();
  const namedAt = new Map<string, string[]>();
  for (const service of project.services) {
    for (const [methodName, method] of Object.entries(service.descriptor.methods)) {
      if (typeof method.implementation !== 'string') continue;
      references.add(method.implementation);
      const pointer = `/methods/${methodName}/implementation`;
      const moduleName = method.implementation.split('.')[0];
      namedAt.set(moduleName, [
        ...(namedAt.get(moduleName) ?? []),
        `${service.file}:${service.lineOf(pointer)}: ${pointer}`,
      ]);
    }
  }
  return { references, namedAt };
}

/**
 * Loads `server/<module>.js` for every module a descriptor names, plus `api` (loaded by default, as upstream did).
 * Only module names the schema allows reach here (`[\w-]+`), so a name cannot walk out of `server/`. Modules are
 * required afresh on every load, so that a hot reload sees edited code. Each resolved function is called with a
 * deadline (see callWithDeadline).
 */
export function loadImplementations(project: Project, options: ImplementationOptions = {}): Implementations {
  const timeoutMs = selectImplementationTimeout(project, options);
  const serverDir = join(project.root, 'server');
  const { references, namedAt } = findImplementationReferences(project);
  const moduleNames = new Set(['api', ...[...references].map((reference) => reference.split('.')[0])]);
  const modules = new Map<string, { ok: true; exports: unknown } | { ok: false; reason: string }>();
  const problems: string[] = [];
  const missingPackages: string[] = [];
  const failedModules: string[] = [];
  for (const name of moduleNames) {
    const file = join(serverDir, `${name}.js`);
    if (!existsSync(file)) {
      if (name !== 'api') {
        modules.set(name, { ok: false, reason: `the module server/${name}.js does not exist` });
        for (const place of namedAt.get(name) ?? []) problems.push(`${place}: server/${name}.js does not exist`);
      }
      continue;
    }
    try {
      // Node's own require for the project's CommonJS files (not a bundler's or a test runner's registry), with
      // the cached copy dropped so that a reload runs the edited code.
      const load = createRequire(file);
      delete load.cache[file];
      const exports: unknown = load(file);
      modules.set(name, { ok: true, exports });
    } catch (err) {
      const message = readErrorMessage(err).split('\n')[0];
      // The error's message (which may name absolute paths) goes to the startup report only, not to clients.
      modules.set(name, { ok: false, reason: `the module server/${name}.js failed to load (see the server log)` });
      const missing = findMissingPackage(err);
      if (missing) {
        missingPackages.push(
          `server/${name}.js: failed to load: it requires the package ${missing}, which is not installed ` +
            '(npm install in the project)',
        );
      } else problems.push(`server/${name}.js: failed to load: ${message}`);
      failedModules.push(name);
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
    const fn = findOwnFunction(loaded.exports, functionName);
    if (fn) {
      const deadline = { timeoutMs, reference, logger: options.logger };
      resolved.set(reference, {
        ok: true,
        fn: (request, response, serviceDescriptor) =>
          callWithDeadline(fn, { request, response, serviceDescriptor }, deadline),
      });
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
    missingPackages,
    failedModules,
  };
}
