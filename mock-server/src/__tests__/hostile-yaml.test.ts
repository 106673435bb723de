import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isRestbusError } from '@restbus/infra';
import { createSeededRandom, recordHostileCounts } from '@restbus/infra/testing';
import { sampleFiles, serveProject, writeProject } from './sample-project';
import type { MockServer } from '../server/start-mock-server';
import { createHostileYamlFiles, type HostileYamlFile } from './hostile-yaml-files';
import { loadProject } from '@restbus/project-format';

/**
 * A load or a reload that takes longer than this is a hang: a good project loads in milliseconds, and this is far
 * beyond what a loaded machine needs.
 */
const BOUND_MS = 10_000;
const REPO = resolve(__dirname, '../../..');
const GOOD = sampleFiles();
const USERS = [
  { id: 1, data: 'some mock data' },
  { id: 2, data: 'more' },
];

let project: string;
let server: MockServer;

beforeAll(async () => {
  project = await writeProject(GOOD);
  // Idle connections outlive a stalled load: the server must not close the one fetch reuses for the next check.
  server = await serveProject(project, { watch: false, limits: { keepAliveTimeoutMs: 60_000 } });
});
afterAll(async () => {
  await server?.close();
  await rm(project, { recursive: true, force: true });
});

interface Finding {
  kind: 'crashes' | 'hangs' | 'unnamed';
  what: string;
}

async function plant(file: string, content: HostileYamlFile['content']): Promise<void> {
  const path = join(project, file);
  await rm(path, { recursive: true, force: true });
  if ('bytes' in content) await writeFile(path, content.bytes);
  else if ('fifo' in content) execFileSync('mkfifo', [path]);
  else if ('symlinkTo' in content) await symlink(content.symlinkTo, path);
  else await mkdir(path);
}

/** Two turns through the event loop's timers: a timer already due when this starts has fired when it ends. */
const timersPassed = async (): Promise<void> => {
  await new Promise((resolve) => setTimeout(resolve, 0));
  await new Promise((resolve) => setTimeout(resolve, 0));
};

/**
 * What `work` gave, and whether it took past the bound, by a timer: one that fires before the work settles catches
 * work that never settles; one that was due by then (it fires at the next turn of the timers, before two more
 * timers set after the work) catches a synchronous stall, during which no timer can fire.
 */
async function withinBound<T>(work: () => Promise<T>): Promise<{ value?: T; error?: unknown; hang: boolean }> {
  let expired = false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'hang'>((settle) => {
    timer = setTimeout(() => {
      expired = true;
      settle('hang');
    }, BOUND_MS);
  });
  try {
    const value = await Promise.race([work(), timeout]);
    if (value === 'hang') return { hang: true };
    await timersPassed();
    return { value, hang: expired };
  } catch (error) {
    await timersPassed();
    return { error, hang: expired };
  } finally {
    clearTimeout(timer);
  }
}

/** What is wrong with a load's failure message: it must name the broken file on every line, and nothing else. */
function judgeMessage(message: string, file: string): Finding[] {
  const findings: Finding[] = [];
  if (
    /\n\s*at\s|node:internal|node_modules|\.[jt]s:\d+/.test(message) ||
    message.includes(REPO) ||
    message.includes(project)
  ) {
    findings.push({ kind: 'crashes', what: `a stack trace or a machine path: ${message.slice(0, 200)}` });
  }
  const named = new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(:\\d+)?: \\S`);
  for (const line of message.split('\n')) {
    if (!named.test(line)) findings.push({ kind: 'unnamed', what: line.slice(0, 200) });
  }
  return findings;
}

/** Whether the server still answers as the good project says. */
async function servesTheGoodProject(): Promise<boolean> {
  const users = await fetch(`${server.url}/rest/users`).catch(() => undefined);
  const echo = await fetch(`${server.url}/rest/echo`, { method: 'PUT' }).catch(() => undefined);
  if (users?.status !== 200 || echo?.status !== 200) return false;
  const usersBody = (await users.json()) as unknown;
  const echoBody = (await echo.json()) as { name?: unknown };
  return JSON.stringify(usersBody) === JSON.stringify(USERS) && echoBody.name === 'Echo';
}

/** Loads the project, then reloads the server, with the hostile file in place. */
async function judgeHostile({ file }: HostileYamlFile): Promise<Finding[]> {
  const findings: Finding[] = [];
  const loaded = await withinBound(() => loadProject({ projectDir: project }));
  if (loaded.error !== undefined) {
    if (isRestbusError(loaded.error) && loaded.error.code === 'PROJECT_INVALID') {
      findings.push(...judgeMessage(loaded.error.message, file));
    } else {
      findings.push({ kind: 'crashes', what: `loadProject threw ${String(loaded.error).slice(0, 200)}` });
    }
  }
  // A load that stalled would stall the reload the same way: one wait is enough to count it.
  if (loaded.hang) return [...findings, { kind: 'hangs', what: `loadProject took more than ${BOUND_MS} ms` }];

  const reloaded = await withinBound(() => server.reload());
  if (reloaded.hang) findings.push({ kind: 'hangs', what: `reload took more than ${BOUND_MS} ms` });
  if (reloaded.error !== undefined) findings.push({ kind: 'crashes', what: `reload threw ${String(reloaded.error)}` });
  if (reloaded.value && !reloaded.value.ok) {
    findings.push(...judgeMessage(reloaded.value.problems, file));
    if (!(await servesTheGoodProject())) {
      findings.push({ kind: 'crashes', what: 'the last good version is not served' });
    }
  }
  if (reloaded.value && reloaded.value.ok !== (loaded.error === undefined)) {
    findings.push({ kind: 'crashes', what: 'loadProject and reload disagree' });
  }
  return findings;
}

async function tryCase(hostile: HostileYamlFile): Promise<Finding[]> {
  await plant(hostile.file, hostile.content);
  const findings = await judgeHostile(hostile);
  await plant(hostile.file, { bytes: Buffer.from(GOOD[hostile.file]) });
  const restored = await server.reload();
  if (!restored.ok || !(await servesTheGoodProject())) {
    findings.push({ kind: 'crashes', what: 'the good project does not load again' });
  }
  return findings.map((finding) => ({ ...finding, what: `${hostile.kind} in ${hostile.file}: ${finding.what}` }));
}

describe('project loading under hostile YAML files', () => {
  // A sound loader takes a few seconds for all the files; the timeout leaves room for a loaded machine, and to list
  // the stalls of a loader that is not sound.
  it('loads each hostile file or names it in every line of a PROJECT_INVALID error, in bounded time, and a reload keeps the last good version', async () => {
    const cases = createHostileYamlFiles(createSeededRandom(20261211), (file) => String(GOOD[file]));
    const findings: Finding[] = [];
    for (const hostile of cases) findings.push(...(await tryCase(hostile)));

    const count = (kind: Finding['kind']): number => findings.filter((finding) => finding.kind === kind).length;
    recordHostileCounts('yaml', {
      tried: { files: cases.length },
      found: { crashes: count('crashes'), hangs: count('hangs'), unnamed: count('unnamed') },
    });
    expect(findings.slice(0, 10)).toEqual([]);
    // `__proto__: {polluted: yes}` in a file must stay a key of that file.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 600_000);
});
