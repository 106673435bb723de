import { readdirSync, watch, type Dirent, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { type Logger, readErrorCode } from '@restbus/infra';

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
 * Watches every folder of the tree under `root` (but the ignored ones) on its own, and calls `onPath` with the path,
 * relative to `root`, of each entry that changes. Folders, not files, are watched: a folder's watch names the entry,
 * so a file replaced by a rename (`sed -i`, an editor's atomic save) or deleted and created again is still seen
 * afterwards. Node's `recursive: true` on Linux watches each file's inode instead, and goes deaf to a file once it
 * is renamed over. Folders created later are watched as they appear.
 */
function watchFolders(
  root: string,
  onPath: (path: string) => void,
  onError: (err: unknown, folder: string) => void,
): () => void {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;

  function unwatch(folder: string): void {
    for (const [path, watcher] of watchers) {
      if (path !== folder && !path.startsWith(`${folder}${sep}`)) continue;
      watcher.close();
      watchers.delete(path);
    }
  }

  function watchFolder(folder: string): void {
    const watcher = watch(join(root, folder), (event, name) => {
      const path = name ? join(folder, name.toString()) : folder;
      if (IGNORED.test(path)) return;
      onPath(path);
      if (event === 'rename' && path !== folder) void follow(path);
    });
    watcher.on('error', (err) => {
      unwatch(folder);
      onError(err, folder);
    });
    watchers.set(folder, watcher);
  }

  async function watchSubfolders(folder: string): Promise<void> {
    const entries = await readdir(join(root, folder), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isDirectory()) await add(join(folder, entry.name));
  }

  async function add(folder: string): Promise<void> {
    if (closed || watchers.has(folder) || IGNORED.test(folder)) return;
    try {
      watchFolder(folder);
    } catch (err) {
      // Gone again before it could be watched: its parent's watch has seen that.
      if (readErrorCode(err) !== 'ENOENT') onError(err, folder);
      return;
    }
    await watchSubfolders(folder);
  }

  // An entry that appeared may be a new folder to watch; one that went away may be a watched folder to let go. A
  // folder deleted and made again is a new folder: the old watch is on the one that is gone.
  async function follow(path: string): Promise<void> {
    const info = await stat(join(root, path)).catch(() => undefined);
    if (closed) return;
    unwatch(path);
    if (info?.isDirectory()) await add(path);
  }

  // The tree as it is now is watched before this returns (the server says "serving" next, and a change made then
  // must be seen), so that a project that cannot be watched at all throws here; folders made later are followed.
  const watchTree = (folder: string): void => {
    if (watchers.has(folder) || IGNORED.test(folder)) return;
    try {
      watchFolder(folder);
    } catch (err) {
      if (folder === '') throw err;
      if (readErrorCode(err) !== 'ENOENT') onError(err, folder);
      return;
    }
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(join(root, folder), { withFileTypes: true });
    } catch {
      // Gone meanwhile: its parent's watch has seen that.
    }
    for (const entry of entries) if (entry.isDirectory()) watchTree(join(folder, entry.name));
  };
  watchTree('');
  return () => {
    closed = true;
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
  };
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

  let stopWatching: () => void;
  try {
    stopWatching = watchFolders(
      root,
      (file) => {
        changed.add(file);
        firstChange ||= Date.now();
        schedule();
      },
      (err, folder) =>
        folder
          ? logger.warn({ err, folder }, 'cannot watch a folder of the project: changes in it are not reloaded')
          : logger.warn({ err }, 'watching the project failed: hot reload is off'),
    );
  } catch (err) {
    logger.warn({ err }, 'cannot watch the project: hot reload is off');
    return () => undefined;
  }
  return () => {
    closed = true;
    clearTimeout(timer);
    stopWatching();
  };
}
