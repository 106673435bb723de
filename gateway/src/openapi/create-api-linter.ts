import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Diagnostic, SourceFile } from '@restbus/openapi';

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
}

/** Under ts-jest this module runs from src/; the worker is always the compiled one (jest's setup builds it). */
function workerFile(): string {
  const beside = join(__dirname, 'lint-worker.js');
  return existsSync(beside) ? beside : join(__dirname, '../../dist/openapi/lint-worker.js');
}

/**
 * Lints in a worker thread that ends after each file. Spectral and its compiled rulesets take about 15 MB and half a
 * second to load, and a gateway that kept them in its heap after start answered requests measurably slower; in a
 * worker they are gone once the warnings are known, a lint that runs away is stopped, and its memory is bounded.
 */
export function createApiLinter({ timeoutMs = 60_000 }: ApiLinterOptions = {}): ApiLinter {
  /** The lints under way, each stopped by calling it. */
  const running = new Set<() => void>();
  let closed = false;
  return {
    lint({ file, text }) {
      const warn = (why: string): Diagnostic[] => [
        { severity: 'warning', file, path: '', message: `could not be checked for warnings: ${why}` },
      ];
      if (closed) return Promise.resolve(warn('the linter was closed'));
      return new Promise((resolve) => {
        const worker = new Worker(workerFile(), {
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
        worker.once('message', (message: { diagnostics?: Diagnostic[]; failed?: string }) =>
          finish(message.diagnostics ?? warn(message.failed ?? 'the linter failed')),
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
