import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Diagnostic, SourceFile } from '@restbus/openapi';
import { defaultLintCacheDir, fingerprintLinter, LintCache } from './lint-cache';

export interface ApiLinter {
  /** Warnings about one API file (see lint-api-text); never throws: a lint that fails is itself a warning. */
  lint(source: SourceFile): Promise<Diagnostic[]>;
  /**
   * Stops the lints under way (their workers end; each lint resolves with a warning that it could not be checked),
   * and any lint asked for later. A stopping gateway does not wait for warnings nobody will read.
   */
  close?(): void;
}

export interface ApiLinterOptions {
  /** A lint that takes longer is given up (a warning says so): the description still loads. */
  timeoutMs?: number;
  /**
   * Where the warnings of texts linted before are kept (see LintCache): a folder, `off` for none. The system's
   * temporary folder when left out.
   */
  cacheDir?: string;
}

/** Under ts-jest this module runs from src/; the worker is always the compiled one (jest's setup builds it). */
function compiledFile(name: string): string {
  const beside = join(__dirname, name);
  return existsSync(beside) ? beside : join(__dirname, '../../dist/openapi', name);
}

function openCache(cacheDir: string | undefined): LintCache | undefined {
  if (cacheDir === 'off') return undefined;
  try {
    // The lint's code: the worker, its linter, and the two helpers of @restbus/openapi that shape what it says.
    const openapi = dirname(require.resolve('@restbus/openapi'));
    const helpers = ['diagnostic', 'value-at'].map((name) =>
      [`${name}.js`, `${name}.ts`].map((file) => join(openapi, file)).find((file) => existsSync(file)),
    );
    if (helpers.includes(undefined)) return undefined;
    const fingerprint = fingerprintLinter([
      compiledFile('lint-worker.js'),
      compiledFile('lint-api-text.js'),
      ...(helpers as string[]),
    ]);
    return LintCache.open(cacheDir || defaultLintCacheDir(), fingerprint);
  } catch {
    return undefined; // the linter's files cannot be read: it lints every time, as it did without a cache
  }
}

/**
 * Lints in a worker thread that ends after each file. Spectral and its compiled rulesets take about 15 MB and half a
 * second to load, and a gateway that kept them in its heap after start answered requests measurably slower; in a
 * worker they are gone once the warnings are known, a lint that runs away is stopped, and its memory is bounded.
 */
export function createApiLinter({ timeoutMs = 60_000, cacheDir }: ApiLinterOptions = {}): ApiLinter {
  /** The lints under way, each stopped by calling it. */
  const running = new Set<() => void>();
  let closed = false;
  /** Opened at the first lint: a gateway that never lints (--check of a file that does not parse) makes no folder. */
  let cache: { opened?: LintCache } | undefined;
  return {
    lint({ file, text }) {
      const warn = (why: string): Diagnostic[] => [
        { severity: 'warning', file, path: '', message: `could not be checked for warnings: ${why}` },
      ];
      if (closed) return Promise.resolve(warn('the linter was closed'));
      cache ??= { opened: openCache(cacheDir) };
      const known = cache.opened?.read(file, text);
      if (known) return Promise.resolve(known);
      const keep = (diagnostics: Diagnostic[]): Diagnostic[] => {
        cache?.opened?.write(text, diagnostics);
        return diagnostics;
      };
      return new Promise((resolve) => {
        const worker = new Worker(compiledFile('lint-worker.js'), {
          workerData: { file, text },
          resourceLimits: { maxOldGenerationSizeMb: 512 },
          stdout: true,
          stderr: true,
        });
        const timer = setTimeout(() => finish(warn(`it took longer than ${timeoutMs / 1000} s`)), timeoutMs);
        const stop = (): void => finish(warn('the linter was closed'));
        running.add(stop);
        function finish(diagnostics: Diagnostic[]): void {
          running.delete(stop);
          clearTimeout(timer);
          worker.removeAllListeners();
          worker.on('error', () => undefined);
          void worker.terminate();
          resolve(diagnostics);
        }
        // Only a lint that ran to its end is kept: a failure, a timeout or a stop is this run's, not the text's.
        worker.once('message', (message: { diagnostics?: Diagnostic[]; failed?: string }) =>
          finish(message.diagnostics ? keep(message.diagnostics) : warn(message.failed ?? 'the linter failed')),
        );
        worker.once('error', (err) => finish(warn(err.message)));
        worker.once('exit', (code) => finish(warn(`the linter stopped (exit ${code})`)));
      });
    },
    close() {
      closed = true;
      for (const stop of [...running]) stop();
    },
  };
}
