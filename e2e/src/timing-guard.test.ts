import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { findClockReads, findClockReadsIn, listTestSources } from './find-clock-reads';
import { findShortDeadlinesIn } from './find-short-deadlines';
import { TIMING_ALLOW_LIST } from './timing-allow-list';

const REPO_ROOT = resolve(__dirname, '../..');
/** Every package's sources: tests, their helpers and e2e live under these. */
const SOURCE_DIRS = [
  'infra/runtime/src',
  'infra/project-format/src',
  'infra/openapi/src',
  'gateway/src',
  'person-service/src',
  'systems-service/src',
  'mock-server/src',
  'tool/src',
  'e2e/src',
];
/** The guard's own files name the APIs it looks for. */
const GUARD_FILES = new Set([
  'e2e/src/find-clock-reads.ts',
  'e2e/src/timing-guard.test.ts',
  'e2e/src/timing-allow-list.ts',
]);

const isAllowed = (file: string, api: string) =>
  TIMING_ALLOW_LIST.some((entry) => entry.file === file && entry.api === api);

describe('the timing guard: npm test asserts behaviour, never a duration or a memory figure', () => {
  const reads = findClockReads(REPO_ROOT, SOURCE_DIRS).filter((read) => !GUARD_FILES.has(read.file));

  it('finds no clock or memory read in a test or test helper outside src/bench/ that the allow-list does not give a reason for', () => {
    const unlisted = reads
      .filter((read) => !isAllowed(read.file, read.api))
      .map(({ file, line, api }) => `${file}:${line} reads ${api}`);
    expect(unlisted).toEqual([]);
  });

  it('keeps no allow-list entry that no longer matches a read', () => {
    const stale = TIMING_ALLOW_LIST.filter((entry) => !reads.some((r) => r.file === entry.file && r.api === entry.api));
    expect(stale.map(({ file, api }) => `${file} ${api}`)).toEqual([]);
  });

  it('gives every allow-list entry a reason', () => {
    expect(TIMING_ALLOW_LIST.filter((entry) => entry.reason.trim().length < 20)).toEqual([]);
  });

  it('would catch each kind of read a timed test makes, and not a comment about one', () => {
    const source = [
      'const started = performance.now();',
      'const t = process.hrtime.bigint();',
      'expect(Date.now() - begun).toBeLessThan(50);',
      'const ms = new Date().getTime();',
      'const { rss } = process.memoryUsage();',
      "const { used_heap_size } = require('v8').getHeapStatistics();",
      'expect(after.heapUsed).toBeLessThan(before.heapUsed * 2);',
      "console.time('parse');",
      'const report = await measureCost(run);',
      'await collectGarbage();',
      '// performance.now() is not read here: this line is prose',
      'await waitFor(() => done, { what: "the reply", timeoutMs: 10_000 });',
    ].join('\n');
    expect(findClockReadsIn('x.test.ts', source).map((read) => `${read.line} ${read.api}`)).toEqual([
      '1 performance.now',
      '2 process.hrtime',
      '3 Date.now',
      '4 new Date().getTime',
      '5 memoryUsage',
      '6 heap statistics',
      '7 heapUsed',
      '8 console.time',
      '9 measureCost',
      '10 collectGarbage',
    ]);
  });
});

describe("the deadline guard: no test file gives a test less time than the run's deadline for a hang", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the run's own configuration, as jest reads it
  const { testTimeout } = require(resolve(REPO_ROOT, 'jest.config.js')) as { testTimeout: number };

  it('sets the run deadline at five minutes or more, for hangs only', () => {
    expect(testTimeout).toBeGreaterThanOrEqual(300_000);
  });

  it('finds no test, hook or jest.setTimeout with a deadline shorter than the run deadline', () => {
    const short = listTestSources(REPO_ROOT, SOURCE_DIRS)
      .flatMap((file) => findShortDeadlinesIn(file, readFileSync(resolve(REPO_ROOT, file), 'utf8'), testTimeout))
      .map(({ file, line, to, ms }) => `${file}:${line} gives ${to} ${ms} ms`);
    expect(short).toEqual([]);
  });

  it('would catch each way a test file sets a deadline, and not a timer or a wait with a deadline', () => {
    const source = [
      "it('a', async () => {}, 60_000);",
      'beforeAll(async () => {',
      '  await start();',
      '}, 2 * 10_000);',
      "it.each([[1]])('b %s', (n) => {}, 5000);",
      "test.concurrent('c', async () => {}, 100);",
      'jest.setTimeout(30_000);',
      'afterEach(function () {}, 1_000);',
      "it('long', async () => {}, 600_000);",
      'setTimeout(() => done(), 1_000);',
      "await waitFor(() => ok, { what: 'x', timeoutMs: 10_000 });",
      "it('no deadline', async () => {});",
    ].join('\n');
    expect(findShortDeadlinesIn('x.test.ts', source, 300_000).map(({ line, to, ms }) => `${line} ${to} ${ms}`)).toEqual(
      ['1 it 60000', '4 beforeAll 20000', '5 it 5000', '6 test 100', '7 jest.setTimeout 30000', '8 afterEach 1000'],
    );
  });
});
