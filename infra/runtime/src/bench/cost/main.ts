// `node infra/runtime/dist/bench/cost/main.js` (after `tsc -b`): the time infra's validation takes over the hostile
// inputs its tests once timed against a bound, with a verdict against that bound. The tests now count the work
// instead (reads of each item, V8's backtracks, runs of V8's linear regexp engine), which says linear or not on any
// machine; these figures say how fast, on this one. Beside them, for scale, the quadratic versions they replace on
// inputs small enough to finish. Exit code 0 whatever the verdicts, unless it crashed.
import { availableParallelism, loadavg } from 'node:os';
import Ajv from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats';
import { addLinearUniqueItems } from '../../validation/add-linear-unique-items';
import { LINEAR_URL } from '../../validation/add-request-formats';
import { createSchemaCompilers } from '../../validation/create-schema-compilers';
import { allowLinearRegExpFallback, linearPatternEngine } from '../../validation/linear-pattern-engine';

/** Runs of each figure; the fastest counts (the least disturbed by the machine's other work). */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

interface Figure {
  name: string;
  /** The bound its test asserted, ms; none for a reference figure. */
  boundMs?: number;
  /** Where that bound was asserted. */
  from?: string;
  /** One run: throws if the answer is wrong (a fast wrong answer is no figure). */
  work: () => void;
}

function expectEqual(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
}

function timeOnce(work: () => void): number {
  const started = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const objects = (count: number, make: (i: number) => object): object[] =>
  Array.from({ length: count }, (_, i) => make(i));

function uniqueItemsOf8000(): () => void {
  const ajv = addLinearUniqueItems(new Ajv({ allErrors: true, strict: false }));
  const validate = ajv.compile({ type: 'array', uniqueItems: true, items: { type: 'object' } });
  const list = objects(8000, (i) => ({ id: i, name: `n${i}`, tags: ['a', 'b'] }));
  const copied = [...list, { tags: ['a', 'b'], name: 'n7', id: 7 }];
  return () => {
    expectEqual('8,000 distinct objects', validate(list), true);
    expectEqual('8,000 objects and a copy', validate(copied), false);
  };
}

function uniqueItemsOf20000(): () => void {
  const validate = createSchemaCompilers('3.0').all.compile({ type: 'array', uniqueItems: true });
  const items = objects(20_000, (i) => ({ id: i }));
  const copied = [...items, { id: 5 }];
  return () => {
    expectEqual('20,000 distinct objects', validate(items), true);
    expectEqual('20,000 objects and a copy', validate(copied), false);
  };
}

function pairwiseUniqueItems(count: number): () => void {
  const validate = new Ajv({ allErrors: true, strict: false }).compile({ type: 'array', uniqueItems: true });
  const list = objects(count, (i) => ({ id: i, name: `n${i}`, tags: ['a', 'b'] }));
  return () => expectEqual(`${count} distinct objects`, validate(list), true);
}

const hostileUrl = (pairs: number): string => `http://${'a:'.repeat(pairs)} `;

function urlCheck(pattern: RegExp, pairs: number): () => void {
  const text = hostileUrl(pairs);
  return () => expectEqual('a url with no @ after its user-info', pattern.test(text), false);
}

function catastrophicPattern(): () => void {
  // What a program's main does. Process-wide: the url patterns above cannot fall back (their lookaheads), and
  // uniqueItems uses no pattern.
  allowLinearRegExpFallback();
  return () =>
    expectEqual("^(a+)+$ on 40 a's and a !", linearPatternEngine('^(a+)+$', 'u').test(`${'a'.repeat(40)}!`), false);
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;

function main(): void {
  const figures: Figure[] = [
    {
      name: 'linear uniqueItems: 8,000 distinct objects, then with a copy',
      boundMs: 1000,
      from: 'validation/add-linear-unique-items.test.ts',
      work: uniqueItemsOf8000(),
    },
    { name: "  reference: ajv's pairwise uniqueItems, 2,000 distinct objects", work: pairwiseUniqueItems(2000) },
    {
      name: "createSchemaCompilers' uniqueItems: 20,000 distinct objects, then with a copy",
      boundMs: 1000,
      from: 'validation/create-schema-compilers.test.ts',
      work: uniqueItemsOf20000(),
    },
    {
      name: 'LINEAR_URL: 1 MB of user-info with no @',
      boundMs: 500,
      from: 'validation/add-request-formats.test.ts',
      work: urlCheck(LINEAR_URL, 500_000),
    },
    { name: "  reference: ajv-formats' url, 40 KB of the same", work: urlCheck(fullFormats.url as RegExp, 20_000) },
    {
      name: "linearPatternEngine, fallback allowed: ^(a+)+$ on 40 a's and a !",
      boundMs: 1000,
      from: 'validation/linear-pattern-engine.test.ts',
      work: catastrophicPattern(),
    },
  ];
  process.stdout.write(
    `validation cost: the fastest of ${RUNS} runs each (after a first one, shown apart); node ${process.version}, ` +
      `${availableParallelism()} cores, load ${loadavg()[0].toFixed(2)}\n\n`,
  );
  for (const figure of figures) {
    // The unmeasured first run pays for compiling (and, for a pattern, for the backtracks before V8 hands it over).
    const first = timeOnce(figure.work);
    const runs = Array.from({ length: RUNS }, () => timeOnce(figure.work));
    const best = Math.min(...runs);
    const all = `runs ${runs.map((run) => run.toFixed(1)).join(', ')}; first ${first.toFixed(1)}`;
    if (figure.boundMs === undefined) {
      process.stdout.write(`${figure.name}: ${ms(best)} (${all})\n`);
      continue;
    }
    const verdict = best < figure.boundMs ? 'PASS' : 'OVER ITS BOUND';
    process.stdout.write(
      `${figure.name}: ${ms(best)} (${all}), bound < ${figure.boundMs} ms (${figure.from}): ${verdict}\n`,
    );
  }
}

try {
  main();
} catch (err: unknown) {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
