import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@restbus/infra';

const IGNORED = /(^|[/\\])(node_modules|\.git|docs|test)([/\\]|$)/;

export interface WatchOptions {
  /** Quiet time after the last change event before the files are looked at. */
  debounceMs?: number;
  /** How long the changed files must keep their size and time before `onChange` runs. */
  settleMs?: number;
  /** After this long of files that keep changing, `onChange` runs anyway (a log file in the project, say). */
  maxWaitMs?: number;
}

type Signature = string;

async function signatureOf(root: string, files: Iterable<string>): Promise<Signature> {
  const parts: string[] = [];
  for (const file of files) {
    const info = await stat(join(root, file)).catch(() => undefined);
    parts.push(`${file}:${info ? `${info.size}:${info.mtimeMs}` : 'gone'}`);
  }
  return parts.join('|');
}

/**
 * Calls `onChange` when files of the project change: descriptors, configs, mock files, modules. It waits until the
 * changed files are stable (same size and time for `settleMs`), so that an editor's save in several writes, or a
 * copy in progress, is not loaded half-written. Generated docs and tests are ignored; they are never loaded.
 */
export function watchProject(
  root: string,
  onChange: () => void,
  logger: Logger,
  options: WatchOptions = {},
): () => void {
  const { debounceMs = 40, settleMs = 150, maxWaitMs = 5000 } = options;
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let firstChange = 0;
  let closed = false;

  async function settle(): Promise<void> {
    const files = [...changed];
    const before = await signatureOf(root, files);
    await new Promise((resolve) => (timer = setTimeout(resolve, settleMs)));
    if (closed) return;
    const after = await signatureOf(root, files);
    if (before !== after && Date.now() - firstChange < maxWaitMs) {
      schedule();
      return;
    }
    changed.clear();
    firstChange = 0;
    onChange();
  }

  function schedule(): void {
    clearTimeout(timer);
    timer = setTimeout(() => void settle(), debounceMs);
  }

  let watcher: FSWatcher;
  try {
    watcher = watch(root, { recursive: true }, (_event, file) => {
      if (!file || IGNORED.test(file.toString())) return;
      changed.add(file.toString());
      firstChange ||= Date.now();
      schedule();
    });
  } catch (err) {
    logger.warn({ err }, 'cannot watch the project: hot reload is off');
    return () => undefined;
  }
  watcher.on('error', (err) => logger.warn({ err }, 'watching the project failed: hot reload is off'));
  return () => {
    closed = true;
    clearTimeout(timer);
    watcher.close();
  };
}
