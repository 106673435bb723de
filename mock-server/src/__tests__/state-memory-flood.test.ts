import { rm } from 'node:fs/promises';
import type { MockServer } from '../server/start-mock-server';
import * as stateBudget from '../services/stateful/create-state-budget';
import type { StateBudget } from '../services/stateful/create-state-budget';
import { estimateMemory } from '../services/stateful/estimate-memory';
import { serveProject, shopConfig, writeProject, type Files } from './sample-project';

// restbus-mock's resident memory under a flood of new sessions posting 1 MiB bodies (190 of them, 4 at a time) is a
// figure of `npm run bench:memory` (src/bench/memory/main.ts), against its bound. Here, what keeps it bounded: every
// state counted by its estimated memory in one budget, which the oldest sessions give way to and a write larger
// than the whole budget is refused by, its total never above the budget.

/** The budget the test gives the server's state (--state-memory): a few of the flood's bodies fill it. */
const STATE_MEMORY = 1024 * 1024;
const REQUESTS = 40;
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

/** A body of `count` empty objects: costly in memory for its text (some 20 times it). */
const junk = (count: number): string => `{"junk":[${Array(count).fill('{}').join(',')}]}`;

let dir: string;
let server: MockServer;
let budget: StateBudget<unknown>;
beforeAll(async () => {
  dir = await writeProject(files());
  const create = stateBudget.createStateBudget;
  const made = jest.spyOn(stateBudget, 'createStateBudget').mockImplementation((options) => {
    budget = create(options);
    return budget as never;
  });
  try {
    server = await serveProject(dir, { watch: false, stateMemory: STATE_MEMORY });
  } finally {
    made.mockRestore();
  }
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const post = (body: string, cookie?: string): Promise<Response> =>
  fetch(`${server.url}/rest/notes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body,
  });

describe('stateful sessions under a flood of new sessions posting large bodies', () => {
  it('keep the state within its memory budget, counted by its own estimate, the oldest session giving way', async () => {
    expect(budget.maxBytes).toBe(STATE_MEMORY);
    // The first client: a small note in its own session, which the flood will push out.
    const first = await post('{"text":"mine"}');
    expect(first.status).toBe(201);
    const firstCookie = first.headers.get('set-cookie')!.split(';')[0];

    // Each body's estimate is a quarter of the budget or so: the flood fills it many times over.
    const body = junk(4000);
    expect(estimateMemory(JSON.parse(body))).toBeGreaterThan(STATE_MEMORY / 5);
    const statuses: number[] = [];
    let over = 0;
    let sent = 0;
    const worker = async (): Promise<void> => {
      while (sent < REQUESTS) {
        sent++;
        // Every request without a cookie: a new session each time, as one unauthenticated client can do.
        const response = await post(body);
        statuses.push(response.status);
        await response.arrayBuffer();
        if (budget.usedBytes > budget.maxBytes) over++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    expect(over).toBe(0);
    expect(budget.usedBytes).toBeGreaterThan(STATE_MEMORY / 2);
    expect(budget.usedBytes).toBeLessThanOrEqual(STATE_MEMORY);
    // The oldest session gave way: it starts from the seed again. A new client is served as ever.
    const mine = await fetch(`${server.url}/rest/notes`, { headers: { cookie: firstCookie } });
    expect(await mine.json()).toEqual([{ id: 1, text: 'seed' }]);
    expect((await post('{"text":"after"}')).status).toBe(201);
  });

  it('refuses a write larger than the whole budget with 507 STATE_FULL, and serves the next client', async () => {
    const before = budget.usedBytes;
    const response = await post(junk(20_000));
    expect(response.status).toBe(507);
    expect(await response.json()).toMatchObject({
      code: 'STATE_FULL',
      error: expect.stringContaining('1 MiB of memory') as unknown,
    });
    expect(budget.usedBytes).toBeLessThanOrEqual(before + 1024);
    expect((await post('{"text":"next"}')).status).toBe(201);
    expect(budget.usedBytes).toBeLessThanOrEqual(STATE_MEMORY);
  });
});
