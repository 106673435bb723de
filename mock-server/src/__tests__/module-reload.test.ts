import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { sampleFiles, writeProject } from './sample-project';

// Modules are reloaded through Node's own require cache, which jest replaces with its registry: so this runs
// restbus-mock as users do (jest's global setup builds it) and reads its JSON log.
const MAIN = resolve(__dirname, '../../dist/main.js');

interface LogLine {
  msg: string;
  url?: string;
  problems?: string;
}

let project: string;
let child: ChildProcessWithoutNullStreams;
const lines: LogLine[] = [];
const waiters: Array<{ test: (line: LogLine) => boolean; done: (line: LogLine) => void }> = [];

function nextLine(test: (line: LogLine) => boolean, from = lines.length): Promise<LogLine> {
  const seen = lines.slice(from).find(test);
  if (seen) return Promise.resolve(seen);
  return new Promise((done) => waiters.push({ test, done }));
}

beforeAll(async () => {
  project = await writeProject(sampleFiles());
  child = spawn(process.execPath, [
    MAIN,
    '--project',
    project,
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--log-format',
    'json',
  ]);
  createInterface({ input: child.stdout }).on('line', (text) => {
    // Besides its JSON log, the program prints upstream's plain "Express server listening on port N".
    if (!text.startsWith('{')) return;
    const line = JSON.parse(text) as LogLine;
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.test(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.done(line);
      }
    }
  });
});
afterAll(async () => {
  const exited = new Promise((done) => child.on('close', done));
  child.kill('SIGTERM');
  await exited;
  await rm(project, { recursive: true, force: true });
});

it('keeps the last good module serving when an edit leaves it unloadable, and takes the next good one', async () => {
  const { url } = await nextLine((line) => line.msg === 'serving');
  const isAlive = async (): Promise<string> => (await fetch(`${url}/rest/monitoring/isAlive`)).text();
  expect(await isAlive()).toBe('true\n');

  const module = join(project, 'server/monitoring.js');
  const good = sampleFiles()['server/monitoring.js'] as string;
  let from = lines.length;
  await writeFile(module, good.slice(0, good.length / 2));
  const refused = await nextLine((line) => line.msg.includes('the last good version keeps serving'), from);
  expect(refused.problems).toMatch(/^server\/monitoring\.js: failed to load: /);
  expect(await isAlive()).toBe('true\n');

  from = lines.length;
  await writeFile(module, good.replace("send('true\\n')", "send('still true\\n')"));
  await nextLine((line) => line.msg === 'project reloaded', from);
  expect(await isAlive()).toBe('still true\n');
});
