import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diagnostic, SourceFile } from '@restbus/openapi';
import { createApiLinter } from './create-api-linter';
import { LintCache } from './lint-cache';

/** A document the lint warns about: an enum value of another type than its schema's. */
const TEXT =
  'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths: {}\ncomponents: {schemas: {S: {type: string, enum: [1]}}}\n';
const warning = (message: string): Diagnostic => ({
  severity: 'warning',
  file: '/api/a.yml',
  line: 2,
  column: 1,
  path: 'info',
  message,
});

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'restbus-lint-cache-test-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The document as the linter is given it (where a value is, the linter does not ask). */
const source = (file: string): SourceFile => ({ file, text: TEXT, locate: () => undefined });

/** The one entry file a cache folder holds. */
const onlyEntry = (dir: string): string => {
  const entries = readdirSync(dir).filter((name) => name.endsWith('.json'));
  expect(entries).toHaveLength(1);
  return join(dir, entries[0]);
};

describe('the lint cache', () => {
  it('gives back the warnings kept for a text, as warnings of the file that reads them', () => {
    const cache = LintCache.open(join(root, 'cache'), 'linter-1')!;
    expect(cache.read('/api/a.yml', TEXT)).toBeUndefined();
    cache.write(TEXT, [warning('Info object must have "contact" object.')]);
    expect(cache.read('/elsewhere/b.yml', TEXT)).toEqual([
      { ...warning('Info object must have "contact" object.'), file: '/elsewhere/b.yml' },
    ]);
    expect(cache.read('/api/a.yml', `${TEXT} `)).toBeUndefined();
  });

  it('keeps an empty list of warnings: a clean text is not linted again either', () => {
    const cache = LintCache.open(join(root, 'cache'), 'linter-1')!;
    cache.write(TEXT, []);
    expect(cache.read('/api/a.yml', TEXT)).toEqual([]);
  });

  it('never gives a linter the warnings another linter (another ruleset or Spectral) kept', () => {
    LintCache.open(join(root, 'cache'), 'linter-1')!.write(TEXT, [warning('old rule')]);
    expect(LintCache.open(join(root, 'cache'), 'linter-2')!.read('/api/a.yml', TEXT)).toBeUndefined();
  });

  it('makes its folder readable by its user only', () => {
    const dir = join(root, 'made');
    LintCache.open(dir, 'linter-1');
    expect(readdirSync(root)).toContain('made');
    const { mode } = statSync(dir);
    expect(mode & 0o077).toBe(0);
  });

  it('keeps at most its bound of entries, the oldest removed first', () => {
    const dir = join(root, 'cache');
    const cache = LintCache.open(dir, 'linter-1', 3)!;
    for (let i = 0; i < 5; i++) {
      const before = new Set(readdirSync(dir));
      cache.write(`${TEXT}# ${i}\n`, [warning(`text ${i}`)]);
      // Entries written within one clock tick would tie: each new one is dated a second after the one before.
      for (const name of readdirSync(dir)) if (!before.has(name)) utimesSync(join(dir, name), 1000 + i, 1000 + i);
    }
    expect(readdirSync(dir).filter((name) => name.endsWith('.json'))).toHaveLength(3);
    const kept = [0, 1, 2, 3, 4].filter((i) => cache.read('/a', `${TEXT}# ${i}\n`) !== undefined);
    expect(kept).toEqual([2, 3, 4]);
  });
});

describe('the lint cache, given hostile folders and entries, lints again and trusts nothing it did not write', () => {
  const plant = (content: string): { cache: LintCache; entry: string } => {
    const dir = join(root, 'cache');
    const cache = LintCache.open(dir, 'linter-1')!;
    cache.write(TEXT, [warning('real')]);
    const entry = onlyEntry(dir);
    writeFileSync(entry, content);
    return { cache, entry };
  };

  it.each([
    ['not JSON', '{"warnings": ['],
    ['JSON of another shape', '{"diagnostics": []}'],
    [
      'an error where only warnings are kept',
      JSON.stringify({ warnings: [{ severity: 'error', path: '', message: 'x' }] }),
    ],
    [
      'a warning with a member it never writes',
      JSON.stringify({ warnings: [{ severity: 'warning', path: '', message: 'x', file: '/etc/passwd' }] }),
    ],
    [
      'a line that is not a positive integer',
      JSON.stringify({ warnings: [{ severity: 'warning', path: '', message: 'x', line: -1 }] }),
    ],
    [
      'a message of a megabyte',
      JSON.stringify({ warnings: [{ severity: 'warning', path: '', message: 'x'.repeat(1 << 20) }] }),
    ],
    ['an entry of 5 MB', `{"warnings": []}${' '.repeat(5 << 20)}`],
  ])('ignores an entry that is %s', (_what, content) => {
    const { cache } = plant(content);
    expect(cache.read('/api/a.yml', TEXT)).toBeUndefined();
  });

  it('does not follow an entry that is a link', () => {
    const { cache, entry } = plant('');
    rmSync(entry);
    const elsewhere = join(root, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify({ warnings: [{ severity: 'warning', path: '', message: 'planted' }] }));
    symlinkSync(elsewhere, entry);
    expect(cache.read('/api/a.yml', TEXT)).toBeUndefined();
  });

  it('uses no folder that others may write, that is a link, or that is a file', () => {
    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(LintCache.open(open, 'linter-1')).toBeUndefined();
    const real = join(root, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(root, 'link'));
    expect(LintCache.open(join(root, 'link'), 'linter-1')).toBeUndefined();
    writeFileSync(join(root, 'file'), '');
    expect(LintCache.open(join(root, 'file'), 'linter-1')).toBeUndefined();
  });
});

describe('a linter with a cache', () => {
  it('answers a text linted before from its cache, and keeps what a lint found for the next start', async () => {
    const dir = join(root, 'cache');
    const first = await createApiLinter({ cacheDir: dir }).lint(source('/api/a.yml'));
    const entry = onlyEntry(dir);
    // What the next linter is given is what the cache says, so it comes from there and not from a new lint.
    writeFileSync(
      entry,
      JSON.stringify({ warnings: [{ severity: 'warning', path: 'info', message: 'from the cache' }] }),
    );
    const second = await createApiLinter({ cacheDir: dir }).lint(source('/api/b.yml'));
    expect(first.length).toBeGreaterThan(0);
    expect(second).toEqual([{ severity: 'warning', file: '/api/b.yml', path: 'info', message: 'from the cache' }]);
  });

  it('keeps nothing of a lint that did not finish, and nothing at all when told off', async () => {
    const dir = join(root, 'cache');
    const [timedOut] = await createApiLinter({ cacheDir: dir, timeoutMs: 1 }).lint(source('/a.yml'));
    expect(timedOut.message).toMatch(/could not be checked/);
    expect(readdirSync(dir).filter((name) => name.endsWith('.json'))).toEqual([]);
    await createApiLinter({ cacheDir: 'off' }).lint(source('/a.yml'));
    expect(readdirSync(root)).toEqual(['cache']);
  });
});
