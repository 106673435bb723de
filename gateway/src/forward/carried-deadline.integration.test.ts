import { connect, headers, type Msg, type NatsConnection } from 'nats';
import { DEADLINE_HEADER, SERVICE_ERROR_CODE_HEADER } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { createRequestMux } from './create-request-mux';

// The mux's clock is jest's: each test fakes the timers and the clock (the network, setImmediate and microtasks stay
// real), so a hedge goes out, and a deadline passes, exactly when the test moves the clock, and not otherwise. What a
// copy carries is then an exact figure, and a reply that comes while the clock stands still came "at once".
let server: TestNatsServer;
let gateway: NatsConnection;
let service: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  gateway = await connect({ servers: server.url });
  service = await connect({ servers: server.url });
});
afterEach(() => {
  jest.useRealTimers();
});
afterAll(async () => {
  await gateway?.close();
  await service?.close();
  await server?.dispose();
});

/** The copies a plain subscriber on a subject got, each resolved as it comes: `copy(n)` is the nth (from 1). */
interface Copies {
  copy(nth: number): Promise<Msg>;
  count(): number;
}

async function listen(subject: string): Promise<Copies> {
  const received: Msg[] = [];
  const waiting = new Map<number, (msg: Msg) => void>();
  service.subscribe(subject, {
    callback: (_err, msg) => {
      received.push(msg);
      waiting.get(received.length)?.(msg);
    },
  });
  await service.flush();
  return {
    copy: (nth) =>
      received.length >= nth ? Promise.resolve(received[nth - 1]) : new Promise((resolve) => waiting.set(nth, resolve)),
    count: () => received.length,
  };
}

/** Real timers stay for the network; the mux's timers and clock are jest's from now on. */
const fakeTheClock = (): void => {
  jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
};

/**
 * Resolves once every reply the service has sent so far has reached the gateway's connection: the server handled the
 * service's publishes before its PING, and writes to the gateway what it routed before the gateway's PONG.
 */
const repliesDelivered = async (): Promise<void> => {
  await service.flush();
  await gateway.flush();
};

/** Whether the promise has settled, as the test sees it now. */
function track<T>(promise: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { settled: () => settled, promise };
}

const carriedBy = (msg: Msg): number => Number(msg.headers?.get(DEADLINE_HEADER));
const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const errorReply = (status: number): { headers: ReturnType<typeof headers> } => {
  const hdrs = headers();
  hdrs.set(SERVICE_ERROR_CODE_HEADER, String(status));
  return { headers: hdrs };
};
const status503 = (msg: Msg): void => void msg.respond(text('{"status":503}'), errorReply(503));

describe('the request mux and the time a call still has (Restbus-Deadline-Ms)', () => {
  it('publishes a call with the whole timeout it still has, in ms', async () => {
    const copies = await listen('deadline.first');
    fakeTheClock();
    const mux = createRequestMux(gateway);
    const reply = mux.request('deadline.first', text('x'), headers(), 3000);
    const first = await copies.copy(1);
    first.respond(text('done'));
    expect((await reply).string()).toBe('done');
    expect(copies.count()).toBe(1);
    expect(first.headers?.get(DEADLINE_HEADER)).toBe('3000');
  });

  it('publishes a hedged call again with what is left of its timeout, not the whole of it', async () => {
    // The first copy is lost (never answered); the hedge at half the timeout is answered.
    const copies = await listen('deadline.hedged');
    fakeTheClock();
    const mux = createRequestMux(gateway);
    const reply = mux.request('deadline.hedged', text('x'), headers(), 2000, { retryable: true, hedgeAfterMs: 1000 });
    const first = await copies.copy(1);
    jest.advanceTimersByTime(999);
    await repliesDelivered();
    expect(copies.count()).toBe(1);
    jest.advanceTimersByTime(1);
    const second = await copies.copy(2);
    second.respond(text('second'));
    expect((await reply).string()).toBe('second');
    expect(copies.count()).toBe(2);
    // What each copy carries ends at the same moment, the gateway's one deadline: the second went out 1000 ms later
    // and carries 1000 ms less.
    expect([carriedBy(first), carriedBy(second)]).toEqual([2000, 1000]);
  });

  it('answers a hedged call with the slower success of one copy, not the quicker 503 of the other', async () => {
    // The first copy waits out an election on its service (a success late); the hedge meets a 503 at once.
    const copies = await listen('deadline.503');
    fakeTheClock();
    const mux = createRequestMux(gateway);
    const reply = track(
      mux.request('deadline.503', text('x'), headers(), 2000, { retryable: true, hedgeAfterMs: 300 }),
    );
    const first = await copies.copy(1);
    jest.advanceTimersByTime(300);
    status503(await copies.copy(2));
    await repliesDelivered();
    expect(reply.settled()).toBe(false);
    first.respond(text('stored'));
    expect((await reply.promise).string()).toBe('stored');
  });

  it('answers with the 503 once every copy of a hedged call has answered one, without waiting for its deadline', async () => {
    const copies = await listen('deadline.both503');
    fakeTheClock();
    const mux = createRequestMux(gateway);
    const reply = track(
      mux.request('deadline.both503', text('x'), headers(), 3000, { retryable: true, hedgeAfterMs: 200 }),
    );
    const first = await copies.copy(1);
    jest.advanceTimersByTime(200);
    status503(await copies.copy(2));
    await repliesDelivered();
    expect(reply.settled()).toBe(false);
    // The clock stands at 200 ms of 3000 from here on: the answer cannot be the deadline's.
    status503(first);
    const answer = await reply.promise;
    expect(answer.headers?.get(SERVICE_ERROR_CODE_HEADER)).toBe('503');
    expect(copies.count()).toBe(2);
  });

  it('answers a hedged call at its deadline with the 503 it holds when the other copy never answers', async () => {
    const copies = await listen('deadline.lost');
    fakeTheClock();
    const mux = createRequestMux(gateway);
    const reply = track(
      mux.request('deadline.lost', text('x'), headers(), 1000, { retryable: true, hedgeAfterMs: 300 }),
    );
    await copies.copy(1);
    jest.advanceTimersByTime(300);
    status503(await copies.copy(2));
    await repliesDelivered();
    // Held, not answered, until the deadline.
    jest.advanceTimersByTime(699);
    await repliesDelivered();
    expect(reply.settled()).toBe(false);
    // The mux sweeps its calls every 25 ms: by then the deadline has passed.
    jest.advanceTimersByTime(25);
    const answer = await reply.promise;
    expect(answer.headers?.get(SERVICE_ERROR_CODE_HEADER)).toBe('503');
    expect(copies.count()).toBe(2);
  });

  it('answers a call sent once with its 503 at once', async () => {
    const copies = await listen('deadline.once');
    fakeTheClock();
    const mux = createRequestMux(gateway);
    const reply = mux.request('deadline.once', text('x'), headers(), 2000, { retryable: true, hedgeAfterMs: 1000 });
    // The clock never moves: neither the hedge nor the deadline comes.
    status503(await copies.copy(1));
    expect((await reply).headers?.get(SERVICE_ERROR_CODE_HEADER)).toBe('503');
    expect(copies.count()).toBe(1);
  });
});
