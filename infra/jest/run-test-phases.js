#!/usr/bin/env node
// `npm test`: builds once, then two lanes side by side. One runs the packages' suites on two workers; the other the
// e2e suites one file at a time, the cluster one last and in a jest run of its own: the e2e suites mostly wait on
// Docker (their run alone kept the two cores 62 % busy) and the packages' run leaves 15 % idle. The cluster suite once
// ran alone, after both: its three-node NATS cluster, lame-duck restarts and elections starved beside other suites
// (445 s beside them against 167 s alone) while every container's health check ran every 2 s; with those at 10 s it
// holds up beside the packages' suites, whose own NATS-cluster suites (started first) are over by the time it starts
// (issue 45). The e2e lane ends some 200 s before the packages' one, whose last 200 s left the cores 14 % idle: the
// infra library's suites (about 120 s of suite time) run on one worker after whichever lane ends first, so that three
// runs share the cores to the end, as they do at the start. Every run goes on when another fails, so one `npm test`
// shows every failure. Arguments (a file, -t) go to one plain jest run.
const { spawn, spawnSync } = require('node:child_process');
const { closeSync, mkdtempSync, openSync, readFileSync, rmSync } = require('node:fs');
const { availableParallelism, tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const jest = require.resolve('jest/bin/jest');
const root = resolve(__dirname, '../..');
/** The packages' projects run on two workers from the start; TAIL_PROJECTS on one, once a lane has ended. */
const PACKAGE_PROJECTS = [
  'project-format',
  'openapi',
  'gateway',
  'person-service',
  'systems-service',
  'mock-server',
  'tool',
  'dev-issuer',
];
const TAIL_PROJECTS = ['infra'];

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

/**
 * Runs jest and resolves to whether it passed. `aside`: its output goes to a file and is printed in one piece when it
 * ends, so that it does not interleave with the run beside it.
 */
function runJest(title, args, { aside = false } = {}) {
  process.stdout.write(`\n::: npm test: ${title}${aside ? ' (its output follows when it ends)' : ''}\n`);
  const started = process.hrtime.bigint();
  const cpuBefore = readCpuTimes();
  const folder = aside ? mkdtempSync(join(tmpdir(), 'restbus-test-phase-')) : undefined;
  const output = folder ? openSync(join(folder, 'output.log'), 'w') : undefined;
  const child = spawn(process.execPath, [jest, ...args], {
    cwd: root,
    stdio: output === undefined ? 'inherit' : ['ignore', output, output],
  });
  return new Promise((resolvePassed) => {
    child.on('close', (status, signal) => {
      if (folder) {
        closeSync(output);
        process.stdout.write(
          `\n::: npm test: ${title}: its output\n${readFileSync(join(folder, 'output.log'), 'utf8')}`,
        );
        rmSync(folder, { recursive: true, force: true });
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const verdict = `${status === 0 ? 'passed' : 'FAILED'} in ${seconds.toFixed(0)} s`;
      process.stdout.write(`::: npm test: ${title}: ${verdict}${describeCpuUse(cpuBefore, readCpuTimes(), seconds)}\n`);
      resolvePassed(status === 0 && !signal);
    });
  });
}

/** Builds every package once: the runs' global setups then find nothing to do, instead of building side by side. */
function buildOnce() {
  const { status } = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b'], {
    cwd: root,
    stdio: 'inherit',
  });
  return status === 0;
}

const CLUSTER_E2E = 'e2e/src/cluster\\.e2e\\.test\\.ts$';

async function main() {
  const extra = process.argv.slice(2);
  if (extra.length > 0) return runJest(`jest ${extra.join(' ')}`, extra);
  if (!buildOnce()) {
    process.stderr.write('tsc -b failed (see the errors above): the tests need the packages built\n');
    return false;
  }
  const workers = process.env.RESTBUS_TEST_WORKERS ?? '2';
  const e2eLane = async () => {
    const othersPassed = await runJest(
      'the e2e suites but the cluster one, one at a time, beside them',
      ['--selectProjects', 'e2e', '--maxWorkers=1', '--testPathIgnorePatterns', CLUSTER_E2E],
      { aside: true },
    );
    // Last in its lane: by then the packages' own NATS-cluster suites (they start first) are over.
    // --testPathPattern, not a bare pattern: --selectProjects would take it for a project's name.
    const clusterPassed = await runJest(
      'the cluster e2e suite, beside them',
      ['--selectProjects', 'e2e', '--testPathPattern', CLUSTER_E2E],
      { aside: true },
    );
    return othersPassed && clusterPassed;
  };
  const packagesLane = runJest(`the packages' suites but ${TAIL_PROJECTS.join(', ')}, ${workers} workers`, [
    '--selectProjects',
    ...PACKAGE_PROJECTS,
    `--maxWorkers=${workers}`,
  ]);
  const e2ePassed = e2eLane();
  await Promise.race([packagesLane, e2ePassed]);
  const tailPassed = runJest(
    `the ${TAIL_PROJECTS.join(', ')} suites, one worker, once a lane has ended`,
    ['--selectProjects', ...TAIL_PROJECTS, '--maxWorkers=1'],
    { aside: true },
  );
  const passed = await Promise.all([packagesLane, e2ePassed, tailPassed]);
  return passed.every(Boolean);
}

main().then((passed) => process.exit(passed ? 0 : 1));
