import { readFileSync } from 'node:fs';
import { startChild, type Child } from './children';

// Prism is a devDependency of mock-server, hoisted to the workspace's node_modules, where these resolve it. Both
// resolve when called, so that importing the testing entry never needs Prism.
const PRISM = '@stoplight/prism-cli';

/** The Prism version the benchmarks measure, for their headings. */
export function prismVersion(): string {
  return (JSON.parse(readFileSync(require.resolve(`${PRISM}/package.json`), 'utf8')) as { version: string }).version;
}

/**
 * Starts Prism mocking `document` on 127.0.0.1:`port` in its own process; `waitUntil` says when it answers.
 * Prism logs every request at its default level `info`; at `warn` it logs none, as restbus-mock at `warn`.
 * Static examples (no -d) and `--errors false` are its defaults, spelled out so that the comparison is explicit.
 */
export function startPrism(document: string, port: number): Child {
  const args = ['mock', '-p', String(port), '-h', '127.0.0.1', '--errors', 'false', '-v', 'warn', document];
  return startChild('Prism', process.execPath, [require.resolve(`${PRISM}/dist/index.js`), ...args], process.cwd());
}
