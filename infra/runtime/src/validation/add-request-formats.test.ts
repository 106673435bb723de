import { spawnSync } from 'node:child_process';
import { fullFormats } from 'ajv-formats/dist/formats';
import { LINEAR_URL } from './add-request-formats';

const URL = fullFormats.url as RegExp;

/**
 * The backtracks V8's regexp engine makes to run each pattern over each text, counted by V8 itself: a pattern made
 * with a backtrack limit (%NewRegExpWithBacktrackLimit) gives up past it, so the least limit it finishes within is
 * its count, found by halving. The pattern is tried first in an alternation whose other branch matches any text, so
 * finishing shows as a match whether the pattern matched or not. In a child process, where V8's internal functions
 * may be called, and with regexp optimization off: it would turn a greedy loop over one class of characters into a
 * scan that counts no backtracks, hiding the work that grows.
 */
function countBacktracks(runs: Array<{ pattern: RegExp; text: string }>): number[] {
  const script = `
    const withLimit = new Function('source', 'flags', 'limit', 'return %NewRegExpWithBacktrackLimit(source, flags, limit)');
    const count = ({ source, flags, text }) => {
      const fits = (limit) => withLimit('(?:' + source + ')|^[^]*$', flags, limit).exec(text) !== null;
      if (fits(1)) return 1;
      let high = 2;
      while (!fits(high)) high *= 2;
      let low = high / 2;
      while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        if (fits(middle)) high = middle;
        else low = middle;
      }
      return high;
    };
    process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]).map(count)));`;
  const input = JSON.stringify(
    runs.map(({ pattern, text }) => ({ source: pattern.source, flags: pattern.flags, text })),
  );
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--no-regexp-optimization', '-e', script, input], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as number[];
}

/** A url whose user-info part is `pairs` times `a:` and never ends in an `@`. */
const hostileUrl = (pairs: number): string => `http://${'a:'.repeat(pairs)} `;

describe('LINEAR_URL', () => {
  it("matches the strings ajv-formats' url matches", () => {
    const samples = [
      'http://example.com',
      'https://user:secret@example.co.uk:8080/a?b#c',
      'http://a:b:c@example.com',
      'ftp://x@y@example.com',
      'http://:@example.com',
      'http://@example.com',
      'http://10.0.0.1',
      'http://1.2.3.4',
      'http://localhost',
      'http://exa mple.com',
      'mailto:a@example.com',
    ];
    for (const sample of samples) expect([sample, LINEAR_URL.test(sample)]).toEqual([sample, URL.test(sample)]);
  });

  it("refuses a megabyte of user-info that ajv-formats' url takes minutes over", () => {
    // A newer ajv-formats whose url is written otherwise leaves it as it was: this says so.
    expect(LINEAR_URL.source).not.toBe(URL.source);
    expect(LINEAR_URL.test(hostileUrl(500_000))).toBe(false);
  });

  it("backtracks 8x for 8x the user-info, counted by V8, where ajv-formats' url backtracks 64x", () => {
    const [small, large] = [125, 1000].map(hostileUrl);
    const [linearSmall, linearLarge, theirsSmall, theirsLarge] = countBacktracks([
      { pattern: LINEAR_URL, text: small },
      { pattern: LINEAR_URL, text: large },
      // The negative control: the quadratic pattern LINEAR_URL replaces, counted the same way.
      { pattern: URL, text: small },
      { pattern: URL, text: large },
    ]);
    expect(linearSmall).toBeGreaterThan(125);
    expect(linearLarge).toBeLessThanOrEqual(8 * linearSmall + 64);
    expect(theirsLarge).toBeGreaterThan(40 * theirsSmall);
  });
});
