import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import type { Diagnostic } from '@restbus/openapi';

/** A warning as the cache keeps it: the file is the reader's, since the same text may be read from another path. */
type CachedWarning = Omit<Diagnostic, 'file'>;

/** Larger entries are not read: a lint of a large document has many warnings, but not megabytes of them. */
const MAX_ENTRY_BYTES = 4 * 1024 * 1024;

const ENTRY_SCHEMA = {
  type: 'object',
  required: ['warnings'],
  properties: {
    warnings: {
      type: 'array',
      maxItems: 10_000,
      items: {
        type: 'object',
        required: ['severity', 'path', 'message'],
        additionalProperties: false,
        properties: {
          severity: { enum: ['warning'] },
          line: { type: 'integer', minimum: 1 },
          column: { type: 'integer', minimum: 1 },
          path: { type: 'string', maxLength: 4096 },
          message: { type: 'string', maxLength: 4096 },
        },
      },
    },
  },
} as const;

// validateSchema off: the schema is this file's own; checking it compiled the meta-schema at every start (100 ms).
type EntryCheck = ValidateFunction<{ warnings: CachedWarning[] }>;
// Compiled at the first read of the cache, not when the gateway's code loads (about 30 ms of every start).
let entryCheck: EntryCheck | undefined;
const isEntry = (entry: unknown): entry is { warnings: CachedWarning[] } =>
  (entryCheck ??= new Ajv({ validateSchema: false }).compile<{ warnings: CachedWarning[] }>(ENTRY_SCHEMA))(entry);

/**
 * The lint's warnings of each text linted before, on disk, so that a gateway started again on the same files (a
 * restart, a reload, every test start) does not load Spectral again: that load is most of a start's CPU. An entry is
 * named by the hash of the text and of the linter itself (`fingerprint`), so a new ruleset never reads an old entry.
 * A folder another user could write is never used, an entry that is not what this class writes is ignored (the
 * text is linted again), and the folder holds at most `maxEntries` entries, the oldest removed first.
 */
export class LintCache {
  readonly dir: string;
  private readonly fingerprint: string;
  private readonly maxEntries: number;

  private constructor(dir: string, fingerprint: string, maxEntries: number) {
    this.dir = dir;
    this.fingerprint = fingerprint;
    this.maxEntries = maxEntries;
  }

  /**
   * The cache in `dir` (made if missing, readable by this user only), or undefined when it cannot be one: the folder
   * is a link, not a directory, not this user's, or open to others, or it cannot be made (a read-only file system).
   */
  static open(dir: string, fingerprint: string, maxEntries = 256): LintCache | undefined {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const stat = lstatSync(dir);
      const ownUid = process.getuid?.();
      if (!stat.isDirectory() || (stat.mode & 0o077) !== 0) return undefined;
      if (ownUid !== undefined && stat.uid !== ownUid) return undefined;
      return new LintCache(dir, fingerprint, maxEntries);
    } catch {
      return undefined;
    }
  }

  /** The warnings linted from `text` before, given to `file`, or undefined when there are none to trust. */
  read(file: string, text: string): Diagnostic[] | undefined {
    let fd: number | undefined;
    try {
      // O_NOFOLLOW: an entry that is a link (to a device, a huge file) is not followed.
      fd = openSync(this.entryFile(text), constants.O_RDONLY | constants.O_NOFOLLOW);
      const stat = fstatSync(fd);
      if (!stat.isFile() || stat.size > MAX_ENTRY_BYTES) return undefined;
      const entry: unknown = JSON.parse(readFileSync(fd, 'utf8'));
      if (!isEntry(entry)) return undefined;
      return entry.warnings.map((warning) => ({ ...warning, file }));
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Keeps the warnings of `text`; written whole or not at all (a reader never sees half an entry). */
  write(text: string, diagnostics: readonly Diagnostic[]): void {
    const warnings: CachedWarning[] = diagnostics.map(({ file: _file, ...warning }) => warning);
    const entry = { warnings };
    if (!isEntry(entry)) return;
    const target = this.entryFile(text);
    const scratch = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      writeFileSync(scratch, JSON.stringify(entry), { mode: 0o600, flag: 'wx' });
      renameSync(scratch, target);
      this.removeOldest();
    } catch {
      try {
        unlinkSync(scratch);
      } catch {
        // never written
      }
    }
  }

  private entryFile(text: string): string {
    const hash = createHash('sha256').update(this.fingerprint).update('\0').update(text).digest('hex');
    return join(this.dir, `${hash}.json`);
  }

  /** Down to `maxEntries` entries, the least recently written first. */
  private removeOldest(): void {
    const entries = readdirSync(this.dir).filter((name) => name.endsWith('.json'));
    if (entries.length <= this.maxEntries) return;
    const byAge = entries
      .map((name) => {
        try {
          return { name, mtime: statSync(join(this.dir, name)).mtimeMs };
        } catch {
          return { name, mtime: 0 };
        }
      })
      .sort((a, b) => a.mtime - b.mtime);
    for (const { name } of byAge.slice(0, entries.length - this.maxEntries)) {
      try {
        unlinkSync(join(this.dir, name));
      } catch {
        // removed by another gateway meanwhile
      }
    }
  }
}

/** Where a gateway keeps its lint cache unless told otherwise: the system's temporary folder, one per user. */
export function defaultLintCacheDir(): string {
  return join(tmpdir(), `restbus-lint-${process.getuid?.() ?? 'user'}`);
}

/** The version in the package.json of the package `name`, found above its entry (its exports hide package.json). */
function packageVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  for (let up = 0; up < 8; up++, dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === name) return String(manifest.version);
    } catch {
      // no package.json here: one folder up
    }
  }
  return 'unknown';
}

/** What the lint's output depends on besides the text: the linter's own code and Spectral's versions. */
export function fingerprintLinter(files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(readFileSync(file)).update('\0');
  for (const name of ['@stoplight/spectral-core', '@stoplight/spectral-rulesets']) hash.update(packageVersion(name));
  return hash.digest('hex');
}
