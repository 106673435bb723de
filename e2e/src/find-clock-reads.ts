import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** One read of a clock or of the process's memory, where a test would time or weigh what it tests. */
export interface ClockRead {
  /** The file, relative to the repository's root, with forward slashes. */
  file: string;
  line: number;
  /** The API read: one of CLOCK_APIS' names. */
  api: string;
}

/**
 * The timing and memory APIs a test must not read: a test that asserts a duration or a memory figure fails on a busy
 * machine while the code is right. Figures are measured in benchmarks (`src/bench/` folders); a test counts the work
 * instead, or waits with `waitFor` (a timer, not a clock read).
 */
export const CLOCK_APIS: ReadonlyArray<{ api: string; pattern: RegExp }> = [
  { api: 'performance.now', pattern: /\bperformance\s*\.\s*now\s*\(/ },
  { api: 'process.hrtime', pattern: /\bhrtime\b/ },
  { api: 'Date.now', pattern: /\bDate\s*\.\s*now\s*\(/ },
  { api: 'new Date().getTime', pattern: /new\s+Date\s*\(\s*\)\s*\.\s*(getTime|valueOf)\s*\(/ },
  { api: 'memoryUsage', pattern: /\bmemoryUsage\b/ },
  { api: 'heap statistics', pattern: /\bget(Heap(Space)?Statistics|HeapSnapshot)\b/ },
  { api: 'heapUsed', pattern: /\bheap(Used|Total)\b/ },
  { api: 'console.time', pattern: /\bconsole\s*\.\s*time(End|Log)?\s*\(/ },
  { api: 'measureCost', pattern: /\bmeasure(Cost|WithProbe)\s*\(/ },
  { api: 'collectGarbage', pattern: /\bcollectGarbage(Observed)?\s*\(/ },
];

/** Tests and test helpers; a benchmark's own code (under a `bench/` folder) may read clocks, its tests may not. */
function isTestSource(path: string): boolean {
  const parts = path.split('/');
  if (!path.endsWith('.ts') || parts.includes('node_modules') || parts.includes('dist')) return false;
  // A test file is a test wherever it lives, a bench folder included: jest runs it in `npm test`.
  if (path.endsWith('.test.ts')) return true;
  if (parts.includes('bench')) return false;
  if (parts[0] === 'e2e') return true; // every e2e source runs only under jest
  return path.endsWith('.test.ts') || parts.includes('__tests__') || parts.includes('testing');
}

function* walk(root: string, dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(root, path);
    else yield relative(root, path).split(sep).join('/');
  }
}

/** Every clock or memory read in one source text, line by line; `//` comment lines are prose, not reads. */
export function findClockReadsIn(file: string, text: string): ClockRead[] {
  const reads: ClockRead[] = [];
  text.split('\n').forEach((content, index) => {
    const code = content.trimStart();
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
    for (const { api, pattern } of CLOCK_APIS) if (pattern.test(content)) reads.push({ file, line: index + 1, api });
  });
  return reads;
}

/** The tests and test helpers under `sourceDirs` (relative to `root`), as paths relative to `root`. */
export function listTestSources(root: string, sourceDirs: readonly string[]): string[] {
  return sourceDirs.flatMap((dir) => [...walk(root, join(root, dir))].filter(isTestSource));
}

/** Every clock or memory read in the tests and test helpers under `sourceDirs` (relative to `root`). */
export function findClockReads(root: string, sourceDirs: readonly string[]): ClockRead[] {
  return listTestSources(root, sourceDirs).flatMap((file) =>
    findClockReadsIn(file, readFileSync(join(root, file), 'utf8')),
  );
}
