import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { shopConfig, writeProject, type Files } from './sample-project';
import { startMockProgram, type RunningMockProgram } from './start-mock-program';

// What the flood may add to the process's resident memory at its peak: the states (64 MiB of estimated memory by
// default), the bodies being parsed (1 MiB of `{}` is some 21 MB on the heap), and the headroom V8 leaves its heap
// before it collects (up to four times what is live; more garbage piles up while a busy machine slows the
// collector). Measured: +395 MiB on a quiet machine, up to +640 MiB on a busy one. Parsed in slices side by side,
// each half-built body held at once, it reached +809 MiB; parsed one at a time, +409 MiB. Without the total it grew
// past 4 GiB in these 190 requests, a few short of the heap's limit.
const RSS_BOUND = 768 * 1024 * 1024;
const REQUESTS = 190;
const CONCURRENCY = 4;

const files = (): Files => ({
  'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n    stateful: session\n',
  'config.yml': shopConfig(['/notes']),
  'services/notes/service.yml': `name: Notes
description: Notes, one collection per client session
style: COLLECTION
uriTemplate: /notes
methods:
  GET:
    summary: List
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: getCollection-responseBody.json }
  POST:
    summary: Add
    responses:
      - { name: OK, statusCode: 201, reason: created }
`,
  'services/notes/getCollection-responseBody.json': '[{"id":1,"text":"seed"}]\n',
});

/** A JSON object just under the default body limit (1 MiB) that costs V8 about 21 times its text: empty objects. */
const costlyBody = (): string => {
  const head = '{"junk":[';
  const count = Math.floor((1_040_000 - head.length - 2) / 3);
  return `${head}${Array(count).fill('{}').join(',')}]}`;
};

/** A field of /proc/<pid>/status in bytes (VmRSS: resident now, VmHWM: the most it was resident). */
const procStatus = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  const line = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!line) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(line[1]) * 1024;
};

const MiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

let dir: string;
let program: RunningMockProgram | undefined;
afterEach(async () => {
  await program?.stop();
  program = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('stateful sessions under a flood of new sessions posting large bodies', () => {
  it(`keep restbus-mock's resident memory within ${MiB(RSS_BOUND)} of its start over ${REQUESTS} requests, the oldest session giving way`, async () => {
    dir = await writeProject(files());
    program = await startMockProgram(['--project', dir, '--no-watch']);
    const { url, child } = program;
    const pid = child.pid!;
    const post = (body: string, cookie?: string) =>
      fetch(`${url}/rest/notes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
        body,
      });

    // The first client: a small note in its own session, which the flood will push out.
    const first = await post('{"text":"mine"}');
    expect(first.status).toBe(201);
    const firstCookie = first.headers.get('set-cookie')!.split(';')[0];
    const baseline = procStatus(pid, 'VmRSS');

    const body = costlyBody();
    const statuses: number[] = [];
    let peak = 0;
    let sent = 0;
    const worker = async (): Promise<void> => {
      while (sent < REQUESTS) {
        sent++;
        // Every request without a cookie: a new session each time, as one unauthenticated client can do.
        const response = await post(body).catch(() => undefined);
        statuses.push(response?.status ?? 0);
        await response?.arrayBuffer().catch(() => undefined);
        if (child.exitCode === null && child.signalCode === null) peak = Math.max(peak, procStatus(pid, 'VmRSS'));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const alive = child.exitCode === null && child.signalCode === null;
    const highWater = alive ? procStatus(pid, 'VmHWM') : peak;
    process.stdout.write(
      `state flood: ${REQUESTS} requests of ${body.length} bytes, ${CONCURRENCY} at a time: RSS ${MiB(baseline)} at start, ` +
        `peak ${MiB(highWater)} (+${MiB(highWater - baseline)}), ${alive ? 'alive' : 'DEAD'}\n`,
    );

    expect({ alive, over: highWater - baseline > RSS_BOUND }).toEqual({ alive: true, over: false });
    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    // The oldest session gave way: it starts from the seed again. A new client is served as ever.
    const mine = await fetch(`${url}/rest/notes`, { headers: { cookie: firstCookie } });
    expect(await mine.json()).toEqual([{ id: 1, text: 'seed' }]);
    const fresh = await post('{"text":"after"}');
    expect(fresh.status).toBe(201);
  }, 120_000);
});
