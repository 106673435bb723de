import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { startChild, type Child } from './children';

// Prism is what the benchmarks compare the mocks with, and nothing else needs it: it is no devDependency (its 205
// packages were a sixth of what every `npm ci` installed, the CI run's included), but installed on the first
// benchmark that asks for it, once per version, into a folder of its own. Both functions resolve it when called, so
// that importing the testing entry never needs Prism.
const PRISM = '@stoplight/prism-cli';
const PRISM_VERSION = '5.14.2';
const PRISM_HOME = join(
  process.env.RESTBUS_BENCH_CACHE ?? join(homedir(), '.cache', 'restbus'),
  `prism-${PRISM_VERSION}`,
);

/** The folder of Prism's package, installed first when it is not there yet (a message on stderr says so). */
function findPrism(): string {
  const packageDir = join(PRISM_HOME, 'node_modules', PRISM);
  if (existsSync(join(packageDir, 'package.json'))) return packageDir;
  process.stderr.write(`installing Prism ${PRISM_VERSION} for the comparison, once, into ${PRISM_HOME}\n`);
  mkdirSync(PRISM_HOME, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = ['install', '--no-audit', '--no-fund', '--prefix', PRISM_HOME, `${PRISM}@${PRISM_VERSION}`];
  const { status, error } = spawnSync(npm, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (status !== 0 || !existsSync(join(packageDir, 'package.json'))) {
    throw new Error(
      `Prism could not be installed (npm ${args.join(' ')} ${error ? `failed: ${error.message}` : `exited ${status}`})`,
    );
  }
  return packageDir;
}

/** The Prism version the benchmarks measure, for their headings. */
export function prismVersion(): string {
  return (JSON.parse(readFileSync(join(findPrism(), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Starts Prism mocking `document` on 127.0.0.1:`port` in its own process; `waitUntil` says when it answers.
 * Prism logs every request at its default level `info`; at `warn` it logs none, as restbus-mock at `warn`.
 * Static examples (no -d) and `--errors false` are its defaults, spelled out so that the comparison is explicit.
 */
export function startPrism(document: string, port: number): Child {
  const args = ['mock', '-p', String(port), '-h', '127.0.0.1', '--errors', 'false', '-v', 'warn', document];
  return startChild('Prism', process.execPath, [join(findPrism(), 'dist', 'index.js'), ...args], process.cwd());
}
