// Prints one plain closing line, `jest: N passed, N failed`, that CI tools read to count the tests that ran.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed`;
    process.stdout.write(`\n${skipped > 0 ? `${line}, ${skipped} skipped` : line}\n`);
  }
}
module.exports = SummaryReporter;
