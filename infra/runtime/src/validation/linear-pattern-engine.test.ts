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

  it("hands a catastrophic pattern to V8's linear engine once a program's main allowed it, where Unicode mode keeps backtracking", () => {
    // A child process: the V8 flag is process-wide, and this is how a program's main sets it. V8 traces each run of
    // its linear engine; the marks between the checks say whose run it was.
    const script = `
      const { allowLinearRegExpFallback, linearPatternEngine } = require(${JSON.stringify(BUILT)});
      allowLinearRegExpFallback();
      process.stdout.write('\\n@ours\\n');
      const ours = linearPatternEngine('^(a+)+$', 'u').test('a'.repeat(40) + '!');
      process.stdout.write('\\n@unicode\\n');
      const unicode = new RegExp('^(a+)+$', 'u').test('a'.repeat(18) + '!');
      process.stdout.write('\\n@result ' + JSON.stringify({ ours, unicode }) + '\\n');`;
    const run = spawnSync(process.execPath, ['--trace-experimental-regexp-engine', '-e', script], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stderr).toBe('');
    const [, ours, unicode, result] = run.stdout.split(/^@/m);
    // 2^40 backtracking steps would take days: the linear engine ran it, once, and answered as backtracking would.
    expect(ours.match(/Experimental execution/g)).toHaveLength(1);
    expect(JSON.parse(result.replace('result', ''))).toEqual({ ours: false, unicode: false });
    // The negative control: the pattern as ajv compiles it by default, in Unicode mode, which the linear engine
    // cannot run, backtracks its 2^18 steps (past V8's limit of 50,000 before it would hand over) on its own.
    expect(unicode).not.toMatch(/Experimental execution/);
  });
});
