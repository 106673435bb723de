import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeFetchError, findLostWrites, runLoad } from './cluster-load';

interface Person {
  id: string;
  givenName?: string;
}

/**
 * A persons API of the shape the gateway serves: PUT and GET of one person, and the list in pages linked by
 * `Link: <?…>; rel="next"`. `answerWrite` decides what a PUT answers after (or instead of) storing.
 */
function startPersonsApi(
  answerWrite: (person: Person, stored: Map<string, Person>) => number | Promise<number>,
): Promise<Server> {
  const stored = new Map<string, Person>();
  const readBody = async (req: IncomingMessage): Promise<string> => {
    let body = '';
    for await (const chunk of req) body += chunk;
    return body;
  };
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const id = /^\/persons\/(.+)$/.exec(url.pathname)?.[1];
      if (req.method === 'PUT' && id) {
        const status = await answerWrite(JSON.parse(await readBody(req)) as Person, stored);
        res.writeHead(status, status === 503 ? { 'retry-after': '1' } : {}).end();
      } else if (id) {
        const person = stored.get(id);
        res.writeHead(person ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(person ?? {}));
      } else {
        const limit = Number(url.searchParams.get('limit') ?? 10);
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const all = [...stored.values()];
        const next =
          offset + limit < all.length ? { link: `<?limit=${limit}&offset=${offset + limit}>; rel="next"` } : {};
        res
          .writeHead(200, { 'content-type': 'application/json', ...next })
          .end(JSON.stringify(all.slice(offset, offset + limit)));
      }
    })();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const baseOf = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
/** Keeps the newest write of each person (by its number): the store of a service that orders its writes. */
const store = (person: Person, stored: Map<string, Person>): void => {
  const kept = stored.get(person.id);
  if (!kept || Number(kept.givenName) < Number(person.givenName)) stored.set(person.id, person);
};

describe('runLoad with overwriteIds, and findLostWrites', () => {
  const servers: Server[] = [];
  afterEach(() => servers.splice(0).forEach((server) => server.close()));

  it('writes only the given number of persons, each again and again, and finds none lost when the store kept the last', async () => {
    const server = await startPersonsApi((person, stored) => (store(person, stored), 200));
    servers.push(server);
    const known: string[] = [];
    const run = await runLoad(
      { baseUrl: baseOf(server), ratePerSecond: 100, durationMs: 1000, overwriteIds: 3 },
      known,
    );
    expect(run.outcomes.filter((outcome) => outcome.kind === 'write')).toHaveLength(50);
    expect(run.acknowledged.size).toBe(3);
    expect(known).toHaveLength(3);
    // The last write of each person is one of the last three writes of the run (numbers 95, 97 and 99).
    expect([...run.acknowledged.values()].every((write) => write >= 95)).toBe(true);
    expect(await findLostWrites(baseOf(server), run.acknowledged)).toEqual([]);
  });

  it("counts a person's newest acknowledged write, also when an older write's answer comes after it", async () => {
    // The first write of the one person is answered only once the run's last write was: its answer comes last.
    let lastAnswered!: () => void;
    const last = new Promise<void>((resolve) => (lastAnswered = resolve));
    const server = await startPersonsApi(async (person, stored) => {
      store(person, stored);
      if (person.givenName === '1') await last;
      if (person.givenName === '9') setTimeout(lastAnswered, 50);
      return 200;
    });
    servers.push(server);
    const run = await runLoad({ baseUrl: baseOf(server), ratePerSecond: 100, durationMs: 100, overwriteIds: 1 }, []);
    expect([...run.acknowledged.values()]).toEqual([9]);
    expect(await findLostWrites(baseOf(server), run.acknowledged)).toEqual([]);
  });

  it('names a person whose store holds an older write than the last acknowledged, or none at all', async () => {
    // Acknowledges every write, but keeps only the first write of each person, and nothing of one of them.
    const server = await startPersonsApi((person, stored) => {
      if (!stored.has(person.id) && !person.id.endsWith('-1')) store(person, stored);
      return 200;
    });
    servers.push(server);
    const run = await runLoad({ baseUrl: baseOf(server), ratePerSecond: 100, durationMs: 1000, overwriteIds: 3 }, []);
    expect((await findLostWrites(baseOf(server), run.acknowledged)).sort()).toEqual(
      [...run.acknowledged.keys()].sort(),
    );
  });

  it('does not count as lost a write stored after the last acknowledged one, whose own call failed', async () => {
    let writes = 0;
    // Stores every write, but answers the second half 503: the store holds writes nobody was told of.
    const server = await startPersonsApi((person, stored) => (store(person, stored), ++writes > 25 ? 503 : 200));
    servers.push(server);
    const run = await runLoad({ baseUrl: baseOf(server), ratePerSecond: 100, durationMs: 1000, overwriteIds: 3 }, []);
    expect(run.outcomes.filter((outcome) => outcome.status === 503)).toHaveLength(25);
    expect(await findLostWrites(baseOf(server), run.acknowledged)).toEqual([]);
  });
});

describe('runLoad with afterFaultMs', () => {
  it('ends soon after the fault settles, not at durationMs, and has sent through the whole fault', async () => {
    let answered = 0;
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    // The fault lasts until the API has answered 30 calls: counted, not timed.
    const server = await startPersonsApi((person, stored) => {
      store(person, stored);
      if (++answered === 30) settle();
      return 200;
    });
    try {
      const run = await runLoad(
        {
          baseUrl: baseOf(server),
          ratePerSecond: 100,
          durationMs: 600_000,
          faultAtMs: 0,
          fault: () => settled,
          afterFaultMs: 100,
        },
        [],
      );
      const writes = run.outcomes.filter((outcome) => outcome.kind === 'write');
      expect(writes.length).toBeGreaterThanOrEqual(30);
      // At durationMs it would have sent 60,000.
      expect(run.outcomes.length).toBeLessThan(6000);
    } finally {
      server.close();
    }
  });
});

describe('a request that got no answer', () => {
  it("is recorded with the socket error under fetch's own, so a failed run says why", async () => {
    // A server that takes each connection and closes it without a word: fetch fails with "fetch failed", whose cause
    // is the socket's error.
    const server = createServer();
    server.on('connection', (socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const run = await runLoad({ baseUrl: baseOf(server), ratePerSecond: 20, durationMs: 100, timeoutMs: 5000 }, []);
      expect(run.outcomes.length).toBeGreaterThan(0);
      for (const outcome of run.outcomes) {
        expect(outcome.status).toBe(0);
        expect(outcome.error).toMatch(/^TypeError: fetch failed <- \w+/);
      }
    } finally {
      server.close();
    }
  });

  it('names each error of the chain with its code, and stops at four', () => {
    const socket = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
    expect(describeFetchError(new TypeError('fetch failed', { cause: socket }))).toBe(
      'TypeError: fetch failed <- SocketError UND_ERR_SOCKET: other side closed',
    );
    expect(describeFetchError('a string')).toBe('a string');
    let deep: Error = new Error('0');
    for (let i = 1; i < 10; i++) deep = new Error(String(i), { cause: deep });
    expect(describeFetchError(deep).split(' <- ')).toHaveLength(4);
  });
});
