import { connect, headers as natsHeaders, type MsgHdrs, type NatsConnection } from 'nats';
import pino from 'pino';
import { createRequestMessage, startNatsServer, type TestNatsServer } from '../testing';
import { retryWhileUnavailable } from '../store/store-errors';
import { encodeMessage } from '../wire/codec';
import { DEADLINE_HEADER, createRequestHeaders } from '../wire/headers';
import type { ResponseMessage } from '../wire/types';
import type { Handler } from './adapt-handler';
import { createExecutive, type Executive } from './create-executive';

// The intervals are the behaviour here: once the service runs, the test holds the clock (jest's fake timers and the
// performance clock), and the NATS traffic stays real. A call is sent, the clock stands still until the handler
// has it, then moves to the earliest time the answer may come: no answer yet (nothing but the clock can set it
// off). Then to the latest: the answer comes, however long the machine takes to carry it, as the clock stands.
const STEP_MS = 50;

let server: TestNatsServer;
let nc: NatsConnection;
let executive: Executive<object> | undefined;
let arrivals = 0;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});
afterEach(async () => {
  jest.useRealTimers();
  await executive?.stop();
  executive = undefined;
});
afterAll(async () => {
  await nc?.close();
  await server?.dispose();
});

async function startWith(handlers: Record<string, Handler>, handlerTimeout: number): Promise<void> {
  executive = createExecutive({
    name: 'deadline-service',
    version: '1.0.0',
    description: 'handlers that take their time',
    startups: [
      (context) => {
        for (const [uri, handler] of Object.entries(handlers)) {
          context.register({ method: 'put', uri }, (data, cb) => {
            arrivals++;
            return handler(data, cb);
          });
        }
      },
    ],
    argv: ['-n', server.url, '--handlerTimeout', String(handlerTimeout)],
    env: {},
    logger: pino({ level: 'silent' }),
  });
  await executive.start();
  // Sockets, and the microtasks nats.js writes and reads them in, stay real; timers and the performance clock do not.
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
}

interface Call {
  uri: string;
  /** The deadline header's value (absent when undefined). */
  carried?: string;
  /** Headers to send instead of the usual ones with `carried`. */
  headers?: MsgHdrs;
}

let clock = 0;

/** Moves the clock to `ms`, a step at a time, with a round trip through the server after each (pings, answers). */
async function clockTo(ms: number): Promise<void> {
  while (clock < ms) {
    const step = Math.min(STEP_MS, ms - clock);
    clock += step;
    await jest.advanceTimersByTimeAsync(step);
    await nc.flush();
  }
}

/** Sends the calls together; resolves once every one is in a handler, with each one's answer so far. */
async function send(calls: Call[]): Promise<Array<() => ResponseMessage | undefined>> {
  clock = 0;
  const before = arrivals;
  const answers: Array<ResponseMessage | undefined> = [];
  const failures: unknown[] = [];
  calls.forEach(({ uri, carried, headers: given }, i) => {
    const headers = given ?? createRequestHeaders();
    if (carried !== undefined) headers.set(DEADLINE_HEADER, carried);
    // Its timeout is on the test's clock: it never runs that far.
    nc.request(`easer.put_${uri}`, encodeMessage(createRequestMessage({ uri, method: 'put' })), {
      timeout: 600_000,
      headers,
    }).then(
      (msg) => (answers[i] = msg.json<ResponseMessage>()),
      (err: unknown) => failures.push(err),
    );
  });
  while (arrivals < before + calls.length) await nc.flush();
  return calls.map((_call, i) => () => {
    expect(failures).toEqual([]);
    return answers[i];
  });
}

/** Waits (the clock standing) for an answer the clock has set off by now. */
async function answerOf(answer: () => ResponseMessage | undefined): Promise<ResponseMessage> {
  for (let trip = 0; answer() === undefined; trip++) {
    if (trip === 10_000) throw new Error(`no answer with the clock at ${clock} ms`);
    await nc.flush();
  }
  return answer() as ResponseMessage;
}

/** Sends one call and checks it is answered neither before `notBeforeMs` of the clock nor after `byMs`. */
async function answeredBetween(call: Call, notBeforeMs: number, byMs: number): Promise<ResponseMessage> {
  const [answer] = await send([call]);
  await clockTo(notBeforeMs - 1);
  expect(answer()).toBeUndefined();
  await clockTo(byMs);
  return answerOf(answer);
}

/** What a call without a fake clock's help gets: a quick one needs no time to pass. */
async function callAtOnce(uri: string, carried?: string): Promise<ResponseMessage> {
  const headers = createRequestHeaders();
  if (carried !== undefined) headers.set(DEADLINE_HEADER, carried);
  const msg = await nc.request(`easer.put_${uri}`, encodeMessage(createRequestMessage({ uri, method: 'put' })), {
    timeout: 600_000,
    headers,
  });
  return msg.json<ResponseMessage>();
}

const never: Handler = () => undefined;
// A store write during a JetStream election: every attempt hears "no leader" until the deadline.
const inElection: Handler = async () => {
  await retryWhileUnavailable('persons', () => Promise.reject(Object.assign(new Error('no leader'), { code: '503' })));
  return { status: 200 };
};

describe('a service given the time the call still has (the Restbus-Deadline-Ms header)', () => {
  it('answers a handler that never calls back at the carried deadline, not at its own longer one', async () => {
    await startWith({ '/slow': never }, 5000);
    const reply = await answeredBetween({ uri: '/slow', carried: '1000' }, 700, 1000);
    expect(reply).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
  });

  it('follows the carried deadline past its own handler timeout, which is for callers that do not say', async () => {
    await startWith({ '/slow': never }, 600);
    const reply = await answeredBetween({ uri: '/slow', carried: '1500' }, 1200, 1500);
    expect(reply).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
  });

  it('keeps its own handler timeout for a request without the header (easer’s gateway)', async () => {
    await startWith({ '/slow': never }, 1500);
    const reply = await answeredBetween({ uri: '/slow' }, 1500, 1500);
    expect(reply).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
  });

  it.each(['-5', 'soon', '1e99', '99999999999999999999', '12.5', '', ' 800'])(
    'ignores the absurd value %j and keeps its own timeout',
    async (carried) => {
      await startWith({ '/slow': never, '/fast': async () => ({ status: 200 }) }, 700);
      const reply = await answeredBetween({ uri: '/slow', carried }, 700, 700);
      expect(reply).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
      expect(await callAtOnce('/fast', carried)).toMatchObject({ status: 200 });
    },
  );

  it('answers a call with almost no time left at once, and goes on serving', async () => {
    await startWith({ '/slow': never, '/fast': async () => ({ status: 200 }) }, 5000);
    const reply = await answeredBetween({ uri: '/slow', carried: '0' }, 0, 1);
    expect(reply).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
    expect(await callAtOnce('/fast', '3000')).toMatchObject({ status: 200 });
  });

  it('lets a write wait out an election up to the carried deadline, then answers 503 STORE_UNAVAILABLE with Retry-After', async () => {
    await startWith({ '/persons/{id}': inElection }, 10_000);
    // It waits nearly all of it (the gateway would still be waiting for the answer), and answers within it.
    const reply = await answeredBetween({ uri: '/persons/{id}', carried: '2500' }, 2000, 2500);
    expect(reply).toMatchObject({ status: 503, body: { code: 'STORE_UNAVAILABLE' } });
    expect(reply.headers?.['Retry-After'] ?? reply.headers?.['retry-after']).toBeDefined();
  });

  it('keeps requests with different carried deadlines apart: each is answered at its own', async () => {
    await startWith({ '/slow': never }, 5000);
    const [long, short, middle] = await send(['1500', '600', '1000'].map((carried) => ({ uri: '/slow', carried })));
    await clockTo(600);
    await answerOf(short);
    expect([middle(), long()]).toEqual([undefined, undefined]);
    await clockTo(1000);
    await answerOf(middle);
    expect(long()).toBeUndefined();
    await clockTo(1500);
    expect(await answerOf(long)).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
  });

  it('reads the header whatever the case of its name', async () => {
    await startWith({ '/slow': never }, 5000);
    const headers = natsHeaders();
    headers.set('restbus-deadline-ms', '800');
    const reply = await answeredBetween({ uri: '/slow', headers }, 500, 800);
    expect(reply).toMatchObject({ status: 500 });
  });
});
