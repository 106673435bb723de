import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { linearPatternEngine } from './linear-pattern-engine';

// The module as programs load it (jest's global setup builds it).
const BUILT = resolve(__dirname, '../../dist/validation/linear-pattern-engine.js');

describe('linearPatternEngine', () => {
  it('matches what Unicode mode matches for ASCII patterns and keeps Unicode mode where a pattern needs it', () => {
    const cases: Array<[string, string, boolean]> = [
      ['^[a-z]+$', 'abc', true],
      ['^[a-z]+$', 'abC', false],
      ['^\\d{3}-\\d{4}$', '555-1234', true],
      ['^\\p{L}+$', 'Ünïcödé', true],
      ['^\\u{1F600}$', '😀', true],
      ['^é+$', 'éé', true],
    ];
    for (const [pattern, text, expected] of cases) {
      expect([pattern, linearPatternEngine(pattern, 'u').test(text)]).toEqual([pattern, expected]);
    }
    expect(linearPatternEngine('^\\p{L}+$', 'u').unicode).toBe(true);
    expect(linearPatternEngine('^[a-z]+$', 'u').unicode).toBe(false);
  });

  it('refuses what Unicode mode refuses, as ajv would', () => {
    expect(() => linearPatternEngine('\\-x{', 'u')).toThrow(SyntaxError);
  });

  it("lets the linear fallback check a catastrophic pattern in a blink once a program's main allowed it", () => {
    // A child process: the V8 flag is process-wide, and this is how a program's main sets it.
    const script = `
      const { allowLinearRegExpFallback, linearPatternEngine } = require(${JSON.stringify(BUILT)});
      allowLinearRegExpFallback();
      const started = Date.now();
      const matched = linearPatternEngine('^(a+)+$', 'u').test('a'.repeat(40) + '!');
      process.stdout.write(JSON.stringify({ matched, ms: Date.now() - started }));`;
    const run = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { matched: boolean; ms: number };
    // 2^40 backtracking steps would take days; the linear engine takes well under a second even on a busy machine.
    expect(result.matched).toBe(false);
    expect(result.ms).toBeLessThan(1000);
  });
});
