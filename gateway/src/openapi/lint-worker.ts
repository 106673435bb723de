// The lint worker's entry: lints one file's text with Spectral and posts the diagnostics back (see createApiLinter).
import { parentPort, workerData } from 'node:worker_threads';
import { createTextLinter } from './lint-api-text';

const { file, text } = workerData as { file: string; text: string };
createTextLinter()
  .lint(file, text)
  .then(
    (diagnostics) => parentPort!.postMessage({ diagnostics }),
    (err: unknown) => parentPort!.postMessage({ failed: err instanceof Error ? err.message : String(err) }),
  );
