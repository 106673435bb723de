import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '@restbus/infra';

const IGNORED = /(^|[/\\])(node_modules|\.git|docs|test)([/\\]|$)/;

/**
 * Calls `onChange` (debounced) when a file of the project changes: descriptors, configs, mock files, modules.
 * Generated docs and tests are ignored; they are served or run as they are, never loaded.
 */
export function watchProject(root: string, onChange: () => void, logger: Logger, debounceMs = 40): () => void {
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(root, { recursive: true }, (_event, file) => {
      if (file && IGNORED.test(file.toString())) return;
      clearTimeout(timer);
      timer = setTimeout(onChange, debounceMs);
    });
  } catch (err) {
    logger.warn({ err }, 'cannot watch the project: hot reload is off');
    return () => undefined;
  }
  watcher.on('error', (err) => logger.warn({ err }, 'watching the project failed: hot reload is off'));
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
