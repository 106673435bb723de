// jest globalSetup: builds every package (`tsc -b`, incremental) before any test runs, because some suites run
// what users run: the built binaries (dist/), and packed tarballs. `npm test` on a fresh clone needs no other step.
const { execFileSync } = require('node:child_process');
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

// nats-server 2.9 (Debian bookworm's 2.9.10) deadlocks a node whose store write fails (a full disk; fixed in 2.9.12)
// and never pings a busy route (nats-server#4014): the fault tests would fail for the server's bugs, not ours.
const NATS_MINOR_AT_LEAST = 10;

function checkNatsServer() {
  let printed;
  try {
    printed = execFileSync('nats-server', ['--version'], { encoding: 'utf8' });
  } catch {
    throw new Error(
      'nats-server is not on the PATH: the integration tests run real ones (bash infra/scripts/prepare-docker.sh as root installs it)',
    );
  }
  const found = /(\d+)\.(\d+)[.\d]*/.exec(printed) ?? ['(unknown)', '0', '0'];
  const [major, minor] = found.slice(1).map(Number);
  if (!(major > 2 || (major === 2 && minor >= NATS_MINOR_AT_LEAST))) {
    throw new Error(
      `nats-server ${found[0]} is older than 2.${NATS_MINOR_AT_LEAST}, which the cluster tests need (a node with a full disk deadlocks on 2.9.10): bash infra/scripts/prepare-docker.sh as root installs Debian trixie's`,
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
