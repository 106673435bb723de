#!/usr/bin/env node
// `npm test`: two jest runs. First every package's own suites, two workers on two cores (unit, integration, NATS
// cluster and browser suites hold up beside one another). Then the e2e project alone, one file at a time: its Docker
// stacks are ten containers each, and beside other suites the cluster stack's elections starved (issue 45). Both
// phases run even when the first fails, so one run shows every failure. Arguments (a file, -t) go to one plain jest run.
const { spawnSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { availableParallelism } = require('node:os');
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

/** The machine's CPU time so far from /proc/stat, in clock ticks: busy, in the kernel, in all; undefined off Linux. */
function readCpuTimes() {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const all = user + nice + system + idle + iowait + irq + softirq + steal;
    return { busy: all - idle - iowait, system: system + irq + softirq, all };
  } catch {
    return undefined;
  }
}

/**
 * How busy the whole machine was over a run (every process, containers included): whether a run is bound by the CPU,
 * so that running suites side by side cannot make it faster and only less work can (issue 45's measurements).
 */
function describeCpuUse(before, after, seconds) {
  if (!before || !after || after.all === before.all) return '';
  const cores = availableParallelism();
  const busy = (after.busy - before.busy) / (after.all - before.all);
  const kernel = (after.system - before.system) / Math.max(1, after.busy - before.busy);
  return (
    `; the machine's ${cores} cores ${(busy * 100).toFixed(0)} % busy ` +
    `(${Math.round(busy * cores * seconds)} CPU-s, ${(kernel * 100).toFixed(0)} % of it in the kernel)`
  );
}

function runJest(title, args) {
  process.stdout.write(`\n::: npm test: ${title}\n`);
  const started = process.hrtime.bigint();
  const cpuBefore = readCpuTimes();
  const { status, signal } = spawnSync(process.execPath, [jest, ...args], { cwd: root, stdio: 'inherit' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const verdict = `${status === 0 ? 'passed' : 'FAILED'} in ${seconds.toFixed(0)} s`;
  process.stdout.write(`::: npm test: ${title}: ${verdict}${describeCpuUse(cpuBefore, readCpuTimes(), seconds)}\n`);
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
