#!/usr/bin/env node
// Where a run's CPU goes, by program: runs a command (a test file, `npm test`, a benchmark) under the kernel's process
// accounting, which writes the CPU time of every process that ends, started by whom and killed how it may be, and
// names each Node process by the script it ran (a preload records it as the process starts; Node's own name is only
// "node"). The CI machine's two cores are busy 80-90 % of a test run (issue 45): the run gets shorter only with less
// work, and this says which work.
//
//   npm run count-cpu -- [--top N] <command> [args...]      e.g. npm run count-cpu -- npm test -- tool/src/docs
//
// Needs root (accton) and Debian's `acct` package (accton, dump-acct). Processes still running when the command ends
// (a daemon, a container left up) are not counted. Exit code: the command's; 2 on a usage error or a missing tool.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, relative } = require('node:path');

const root = join(__dirname, '..', '..');

function fail(message) {
  process.stderr.write(`count-cpu: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  let top = 25;
  let i = 0;
  if (argv[0] === '--top') {
    top = Number(argv[1]);
    if (!Number.isInteger(top) || top < 1) fail(`--top takes a whole number above 0, got ${argv[1]}`);
    i = 2;
  }
  const command = argv.slice(i);
  if (command.length === 0) fail('name the command to run, e.g. npm run count-cpu -- npm test -- tool/src/docs');
  return { top, command };
}

/** What a Node process ran, as a person names it: the package's program, a jest worker, a generated test. */
function nameNodeProgram(argv) {
  const [script = '', ...rest] = argv;
  if (script === '') return `node ${rest.join(' ')}`.slice(0, 60);
  if (/jest-worker|processChild/.test(script)) return 'jest worker';
  if (/(jest(-cli)?\/bin|\.bin)\/jest$/.test(script)) return 'jest';
  const inRepo = script.startsWith(root) ? relative(root, script) : script;
  if (inRepo.startsWith('node_modules/'))
    return inRepo
      .split('/')
      .slice(0, inRepo.startsWith('node_modules/@') ? 3 : 2)
      .join('/');
  // Generated projects and services live in temporary folders: one line for all of a kind.
  if (/\/test\/[^/]+\.(m|c)?js$/.test(inRepo)) return 'a generated test file (node --test child)';
  if (script === '--test' || rest.includes('--test')) return 'node --test';
  return inRepo.replace(/^\/tmp\/[^/]+/, '/tmp/…');
}

/** One line of `dump-acct`: comm|version|user|system|elapsed|uid|gid|mem|io|pid|ppid|… (times in clock ticks). */
function parseAccountingLine(line) {
  const fields = line.split('|').map((field) => field.trim());
  if (fields.length < 11) return undefined;
  return { comm: fields[0], cpuTicks: Number(fields[2]) + Number(fields[3]), pid: Number(fields[9]) };
}

/** Sums the processes' CPU by program, the largest first. */
function sumByProgram(processes, argvByPid) {
  const programs = new Map();
  for (const { comm, cpuTicks, pid } of processes) {
    const argv = argvByPid.get(pid);
    const name =
      argv !== undefined
        ? nameNodeProgram(argv)
        : comm === 'node'
          ? "node (a container's, or without the preload)"
          : comm;
    const entry = programs.get(name) ?? { name, seconds: 0, processes: 0 };
    entry.seconds += cpuTicks / 100;
    entry.processes += 1;
    programs.set(name, entry);
  }
  return [...programs.values()].sort((a, b) => b.seconds - a.seconds);
}

function main() {
  const { top, command } = parseArgs(process.argv.slice(2));
  for (const tool of ['accton', 'dump-acct']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      fail(`${tool} is missing: apt-get install acct (Debian's process accounting tools)`);
  }
  const work = mkdtempSync(join(tmpdir(), 'restbus-count-cpu-'));
  const accounting = join(work, 'pacct');
  const argvLog = join(work, 'node-argv.log');
  const preload = join(work, 'record-argv.js');
  writeFileSync(accounting, '');
  writeFileSync(argvLog, '');
  // As each Node process starts: its pid and what it runs (JSON: a script's path may hold spaces). Appended in one
  // write, so lines never interleave. Only the main thread: a worker thread has the same pid and no script in its
  // argv, and once renamed every process with a worker (a gateway's lint, a jest worker) "node".
  writeFileSync(
    preload,
    `if (require('node:worker_threads').isMainThread) require('node:fs').appendFileSync(${JSON.stringify(argvLog)}, process.pid + '\\t' + JSON.stringify(process.argv.slice(1)) + '\\n');\n`,
  );
  if (spawnSync('accton', [accounting], { stdio: 'ignore' }).status !== 0)
    fail('accton could not turn process accounting on (it needs root)');
  let status;
  try {
    const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim();
    ({ status } = spawnSync(command[0], command.slice(1), {
      cwd: process.cwd(),
      stdio: 'inherit',
      env: { ...process.env, NODE_OPTIONS: nodeOptions },
    }));
  } finally {
    spawnSync('accton', ['off'], { stdio: 'ignore' });
  }
  const argvByPid = new Map(
    readFileSync(argvLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const tab = line.indexOf('\t');
        return [Number(line.slice(0, tab)), JSON.parse(line.slice(tab + 1))];
      }),
  );
  const dumped = spawnSync('dump-acct', [accounting], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const processes = dumped.stdout.split('\n').map(parseAccountingLine).filter(Boolean);
  const programs = sumByProgram(processes, argvByPid);
  const total = programs.reduce((sum, { seconds }) => sum + seconds, 0);
  const lines = programs
    .slice(0, top)
    .map(
      ({ name, seconds, processes: count }) =>
        `${seconds.toFixed(1).padStart(9)} s ${((seconds / total) * 100).toFixed(1).padStart(5)} % ${String(count).padStart(6)}  ${name}`,
    );
  process.stdout.write(
    `\ncount-cpu: ${total.toFixed(0)} CPU-s in ${processes.length} processes that ended, by program:\n` +
      `   CPU time share  procs  program\n${lines.join('\n')}\n`,
  );
  rmSync(work, { recursive: true, force: true });
  process.exit(status ?? 1);
}

main();
