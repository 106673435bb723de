import { rm } from 'node:fs/promises';
import type { SessionData } from 'express-session';
import { BoundedSessionStore } from '../request/bounded-session-store';
import type { MockServer } from '../server/start-mock-server';
import { sampleFiles, serveProject, writeProject } from './sample-project';

// What the server's memory grows by over 100,000 cookie-less requests is a figure of `npm run bench:memory`
// (src/bench/memory/main.ts). Here, what bounds it: one stored session per client that writes one, none for the
// others, and a store that keeps at most its bound of sessions, the one used longest ago giving way.

const data = (count: number): SessionData => ({ cookie: { originalMaxAge: null }, count }) as unknown as SessionData;

const read = (store: BoundedSessionStore, sid: string): Promise<SessionData | null | undefined> =>
  new Promise((resolve, reject) => store.get(sid, (err, session) => (err ? reject(err as Error) : resolve(session))));

describe('the bounded session store', () => {
  it('keeps at most its bound of sessions however many clients come, the one used longest ago giving way', async () => {
    const store = new BoundedSessionStore(100);
    for (let i = 0; i < 10_000; i++) store.set(`client-${i}`, data(i));
    expect(store.size).toBe(100);
    expect(await read(store, 'client-9899')).toBeNull();
    expect(await read(store, 'client-9900')).toMatchObject({ count: 9900 });
    // client-9900 was just used: the next new client pushes out client-9901 instead.
    store.set('newcomer', data(-1));
    expect(await read(store, 'client-9900')).toMatchObject({ count: 9900 });
    expect(await read(store, 'client-9901')).toBeNull();
    expect(store.size).toBe(100);
  });

  it('forgets a session unused for its time to live, and a touch keeps it', async () => {
    jest.useFakeTimers();
    try {
      const store = new BoundedSessionStore(10, 60_000);
      store.set('idle', data(1));
      store.set('busy', data(2));
      jest.advanceTimersByTime(50_000);
      store.touch('busy', data(2));
      jest.advanceTimersByTime(20_000);
      expect(await read(store, 'idle')).toBeNull();
      expect(await read(store, 'busy')).toMatchObject({ count: 2 });
      expect(store.size).toBe(1);
    } finally {
      jest.useRealTimers();
    }
  });
});

let project: string;
let server: MockServer;
beforeAll(async () => {
  project = await writeProject(sampleFiles());
  server = await serveProject(project, { watch: false });
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

/** `amount` requests of `path` without a cookie, `concurrency` at a time; their statuses and set-cookie headers. */
async function flood(path: string, amount: number, concurrency = 16): Promise<{ statuses: number[]; cookies: number }> {
  const statuses: number[] = [];
  let cookies = 0;
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (sent < amount) {
      sent++;
      const response = await fetch(`${server.url}${path}`);
      await response.arrayBuffer();
      statuses.push(response.status);
      if (response.headers.get('set-cookie')) cookies++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { statuses, cookies };
}

describe('sessions of the mock server', () => {
  it('store one session per cookie-less request to a service that writes its session, in the bounded store, and none for a service that does not', async () => {
    const stores = jest.spyOn(BoundedSessionStore.prototype, 'set');
    try {
      const writing = await flood('/rest/session', 200);
      expect(writing.statuses.filter((status) => status !== 200)).toEqual([]);
      expect(writing.cookies).toBe(200);
      const store = stores.mock.contexts[0] as BoundedSessionStore;
      expect(store).toBeInstanceOf(BoundedSessionStore);
      expect(stores.mock.contexts.every((context) => context === store)).toBe(true);
      expect(store.size).toBe(200);

      const reading = await flood('/rest/monitoring/isAlive', 200);
      expect(reading.statuses.filter((status) => status !== 200)).toEqual([]);
      expect(reading.cookies).toBe(0);
      expect(store.size).toBe(200);
    } finally {
      stores.mockRestore();
    }
  });

  it('give a client that returns its cookie its own session back', async () => {
    const first = await fetch(`${server.url}/rest/session`);
    const cookie = first.headers.get('set-cookie')!.split(';')[0];
    expect(await first.json()).toMatchObject({ count: 1 });
    await flood('/rest/session', 50);
    const again = await fetch(`${server.url}/rest/session`, { headers: { cookie } });
    expect(await again.json()).toMatchObject({ count: 2 });
  });
});
