const { existsSync, readFileSync } = require('node:fs');

/**
 * One line per hostile-input suite (what it tried, and what it found: all zero when the run is clean), and one per
 * path a cost test measured.
 */
function describeHostileCounts() {
  const file = process.env.RESTBUS_HOSTILE_LOG;
  if (!file || !existsSync(file)) return '';
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const list = (counts) =>
    Object.entries(counts)
      .map(([name, n]) => `${n} ${name}`)
      .join(', ');
  // A cost line (measureCost's report) says how one request path grew with its input.
  return lines
    .map(({ suite, tried, found, cost }) =>
      cost ? `cost ${suite}: ${cost}\n` : `hostile ${suite}: tried ${list(tried)}; found ${list(found)}\n`,
    )
    .join('');
}

// Prints one plain closing line, `jest: N passed, N failed`, that CI tools read to count the tests that ran.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed`;
    process.stdout.write(`\n${describeHostileCounts()}`);
    process.stdout.write(`${skipped > 0 ? `${line}, ${skipped} skipped` : line}\n`);
  }
}
module.exports = SummaryReporter;
