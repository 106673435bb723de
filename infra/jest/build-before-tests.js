// jest globalSetup: builds every package (`tsc -b`, incremental) before any test runs, because some suites run
// what users run: the built binaries (dist/), and packed tarballs. `npm test` on a fresh clone needs no other step.
const { execFileSync } = require('node:child_process');
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

function checkNatsServer() {
  try {
    execFileSync('nats-server', ['--version'], { encoding: 'utf8' });
  } catch {
    throw new Error(
      'nats-server is not on the PATH: the integration tests run real ones (sudo bash infra/scripts/prepare-docker.sh installs it)',
    );
  }
}

module.exports = function buildBeforeTests() {
  checkNatsServer();
  const root = resolve(__dirname, '../..');
  const started = Date.now();
  try {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b'], { cwd: root, stdio: 'inherit' });
  } catch {
    throw new Error('tsc -b failed (see the errors above): the tests need the packages built');
  }
  // The hostile-input suites append their counts here (workers inherit the variable); the summary prints them.
  process.env.RESTBUS_HOSTILE_LOG ??= join(mkdtempSync(join(tmpdir(), 'restbus-hostile-')), 'counts.jsonl');
  process.stdout.write(`\nbuilt every package with tsc -b in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
};
