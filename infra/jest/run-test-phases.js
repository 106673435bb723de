#!/usr/bin/env node
// `npm test`: two jest runs. First every package's own suites, two workers on two cores (unit, integration, NATS
// cluster and browser suites hold up beside one another). Then the e2e project alone, one file at a time: its Docker
// stacks are ten containers each, and beside other suites the cluster stack's elections starved (issue 45). Both
// phases run even when the first fails, so one run shows every failure. Arguments (a file, -t) go to one plain jest run.
const { spawnSync } = require('node:child_process');
const { resolve } = require('node:path');

const jest = require.resolve('jest/bin/jest');
const root = resolve(__dirname, '../..');
const PACKAGE_PROJECTS = [
  'infra',
  'project-format',
  'openapi',
  'gateway',
  'person-service',
  'systems-service',
  'mock-server',
  'tool',
];

function runJest(title, args) {
  process.stdout.write(`\n::: npm test: ${title}\n`);
  const started = process.hrtime.bigint();
  const { status, signal } = spawnSync(process.execPath, [jest, ...args], { cwd: root, stdio: 'inherit' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  process.stdout.write(`::: npm test: ${title}: ${status === 0 ? 'passed' : 'FAILED'} in ${seconds.toFixed(0)} s\n`);
  return status === 0 && !signal;
}

const extra = process.argv.slice(2);
if (extra.length > 0) {
  process.exit(runJest(`jest ${extra.join(' ')}`, extra) ? 0 : 1);
}
const workers = process.env.RESTBUS_TEST_WORKERS ?? '2';
const packagesPassed = runJest(`the packages' suites, ${workers} workers`, [
  '--selectProjects',
  ...PACKAGE_PROJECTS,
  `--maxWorkers=${workers}`,
]);
const e2ePassed = runJest('the e2e suites, one at a time', ['--selectProjects', 'e2e', '--maxWorkers=1']);
process.exit(packagesPassed && e2ePassed ? 0 : 1);
