// jest globalSetup: builds every package (`tsc -b`, incremental) before any test runs, because some suites run
// what users run: the built binaries (dist/), and packed tarballs. `npm test` on a fresh clone needs no other step.
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

// The tests' nats-server: the images' version (NATS_IMAGE in infra/docker/Dockerfile) or later, where
// prepare-docker.sh unpacks it (findNatsServer in @restbus/infra/testing looks in the same place).
function checkNatsServer() {
  const binary = process.env.RESTBUS_NATS_SERVER ?? '/opt/restbus/nats-server/nats-server';
  const image = readFileSync(resolve(__dirname, '../docker/Dockerfile'), 'utf8').match(/^ARG NATS_IMAGE=(\S+)$/m)[1];
  const [wantMajor, wantMinor] = image
    .match(/(\d+)\.(\d+)/)
    .slice(1)
    .map(Number);
  let version = '';
  try {
    version = execFileSync(binary, ['--version'], { encoding: 'utf8' });
  } catch {
    throw new Error(
      `${binary} is missing: the integration tests run real NATS servers, ${wantMajor}.${wantMinor} as the images ` +
        "(sudo bash infra/scripts/prepare-docker.sh unpacks Debian's there; RESTBUS_NATS_SERVER names another)",
    );
  }
  const [major, minor] = (version.match(/v(\d+)\.(\d+)\./) ?? []).slice(1).map(Number);
  if (!(major > wantMajor || (major === wantMajor && minor >= wantMinor)))
    throw new Error(`${binary} is ${version.trim()}: the tests need ${wantMajor}.${wantMinor} or later, as ${image}`);
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
