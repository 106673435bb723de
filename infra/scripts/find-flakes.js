#!/usr/bin/env node
// The flake finder: runs the chosen test files N times in a row while a CPU hog keeps every core busy, and reports
// every failure. A test that fails here while the code is right reads a clock or holds a deadline too tight: fix the
// test (count the work, move the figure to a benchmark, widen the deadline), never the bound.
//
//   npm run flakes -- [--runs N] [--hogs N] [--no-hog] <test file or pattern>...
//
// Exit code: 0 when every run passed, 1 when any failed, 2 on a usage error.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { availableParallelism, tmpdir } = require('node:os');
const { join, relative } = require('node:path');

const root = join(__dirname, '..', '..');

function parseArgs(argv) {
  const options = { runs: 5, hogs: availableParallelism(), patterns: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--runs' || arg === '--hogs') {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 0) throw new Error(`${arg} takes a whole number, got ${argv[i]}`);
      options[arg.slice(2)] = value;
    } else if (arg === '--no-hog') options.hogs = 0;
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else options.patterns.push(arg);
  }
  if (options.runs < 1) throw new Error('--runs must be at least 1');
  if (options.patterns.length === 0) throw new Error('name at least one test file or pattern');
  return options;
}

/** One busy loop per core, each its own process, so that the tests share the machine as on a loaded CI host. */
function startHogs(count) {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore', detached: false }),
  );
}

function runJestOnce(patterns, outputFile) {
  const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
  const result = spawnSync(process.execPath, [jest, '--ci', '--json', `--outputFile=${outputFile}`, ...patterns], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  let report;
  try {
    report = JSON.parse(readFileSync(outputFile, 'utf8'));
  } catch {
    return { ran: 0, failures: [`jest wrote no report (exit ${result.status}):\n${result.stderr.slice(-4000)}`] };
  }
  const failures = [];
  for (const suite of report.testResults) {
    const file = relative(root, suite.name);
    const failed = suite.assertionResults.filter((test) => test.status === 'failed');
    for (const test of failed) failures.push(`${file} › ${test.fullName}\n    ${firstLine(test.failureMessages)}`);
    if (failed.length === 0 && suite.status === 'failed') failures.push(`${file}: ${firstLine([suite.message])}`);
  }
  return { ran: report.numTotalTests, failures };
}

// jest colours its failure messages; the report is read as plain text.
const ESC = String.fromCharCode(27);
const stripColours = (text) =>
  text
    .split(ESC)
    .map((part, i) => (i === 0 ? part : part.replace(/^\[[0-9;]*m/, '')))
    .join('');

function firstLine(messages) {
  const text = stripColours((messages ?? []).join('\n'));
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .slice(0, 3)
      .join(' / ') || '(no message)'
  );
}

function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(
      `find-flakes: ${err.message}\nusage: npm run flakes -- [--runs N] [--hogs N] [--no-hog] <test file>...\n`,
    );
    return 2;
  }
  const scratch = mkdtempSync(join(tmpdir(), 'restbus-flakes-'));
  const hogs = startHogs(options.hogs);
  const stopHogs = () => hogs.forEach((hog) => hog.kill('SIGKILL'));
  process.on('exit', stopHogs);
  process.on('SIGINT', () => process.exit(130));
  process.stdout.write(
    `find-flakes: ${options.runs} runs of ${options.patterns.join(' ')} with ${options.hogs} CPU hog(s) beside them\n`,
  );
  const failedRuns = [];
  for (let run = 1; run <= options.runs; run += 1) {
    const { ran, failures } = runJestOnce(options.patterns, join(scratch, `run-${run}.json`));
    process.stdout.write(`run ${run}/${options.runs}: ${ran} tests, ${failures.length} failed\n`);
    for (const failure of failures) process.stdout.write(`  FAIL ${failure}\n`);
    if (failures.length > 0) failedRuns.push(run);
  }
  stopHogs();
  rmSync(scratch, { recursive: true, force: true });
  process.stdout.write(
    failedRuns.length === 0
      ? `find-flakes: every run passed\n`
      : `find-flakes: ${failedRuns.length} of ${options.runs} runs failed (runs ${failedRuns.join(', ')})\n`,
  );
  return failedRuns.length === 0 ? 0 : 1;
}

process.exitCode = main();
