const { existsSync, readFileSync } = require('node:fs');
const { relative } = require('node:path');

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

/** The slowest suites of the run, longest first: where the run's time went, printed at the end of every run. */
function describeSlowestSuites(testResults, rootDir, count = 15) {
  const suites = testResults
    .map(({ testFilePath, perfStats }) => ({
      file: relative(rootDir, testFilePath),
      seconds: (perfStats.runtime ?? perfStats.end - perfStats.start) / 1000,
    }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
  const total = testResults.reduce((sum, { perfStats }) => sum + (perfStats.end - perfStats.start) / 1000, 0);
  const lines = suites.map(({ file, seconds }) => `${seconds.toFixed(1).padStart(7)} s  ${file}`);
  return `the ${suites.length} slowest of ${testResults.length} suites (${total.toFixed(0)} s of suite time in all):\n${lines.join('\n')}\n`;
}

// Prints one plain closing line, `jest: N passed, N failed`, that CI tools read to count the tests that ran.
class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    process.stdout.write(`\n${describeSlowestSuites(results.testResults, this.rootDir)}`);
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed`;
    process.stdout.write(`\n${describeHostileCounts()}`);
    process.stdout.write(`${skipped > 0 ? `${line}, ${skipped} skipped` : line}\n`);
  }
}
module.exports = SummaryReporter;
