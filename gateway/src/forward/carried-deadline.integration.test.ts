import { connect, headers, type Msg, type NatsConnection } from 'nats';
import { DEADLINE_HEADER, SERVICE_ERROR_CODE_HEADER } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { createRequestMux } from './create-request-mux';

let server: TestNatsServer;
let gateway: NatsConnection;
let service: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  gateway = await connect({ servers: server.url });
  service = await connect({ servers: server.url });
});
afterAll(async () => {
  await gateway?.close();
  await service?.close();
  await server?.dispose();
});

interface Delivery {
  msg: Msg;
  at: number;
}

/** A plain subscriber on `subject` that keeps every message it gets and answers as `answer` says. */
async function listen(subject: string, answer: (msg: Msg, nth: number) => void = () => undefined): Promise<Delivery[]> {
  const deliveries: Delivery[] = [];
  service.subscribe(subject, {
    callback: (_err, msg) => {
      deliveries.push({ msg, at: performance.now() });
      answer(msg, deliveries.length);
    },
  });
  await service.flush();
  return deliveries;
}

const carriedBy = (delivery: Delivery): number => Number(delivery.msg.headers?.get(DEADLINE_HEADER));
const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const errorReply = (status: number): { headers: ReturnType<typeof headers> } => {
  const hdrs = headers();
  hdrs.set(SERVICE_ERROR_CODE_HEADER, String(status));
  return { headers: hdrs };
};

describe('the request mux and the time a call still has (Restbus-Deadline-Ms)', () => {
  it('publishes a call with the whole timeout it still has, in ms', async () => {
    const deliveries = await listen('deadline.first', (msg) => msg.respond(text('done')));
    const mux = createRequestMux(gateway);
    await mux.request('deadline.first', text('x'), headers(), 3000);
    expect(deliveries).toHaveLength(1);
    const carried = carriedBy(deliveries[0]);
    expect(Number.isInteger(carried)).toBe(true);
    expect(carried).toBeGreaterThan(2900);
    expect(carried).toBeLessThanOrEqual(3000);
  });

  it('publishes a hedged call again with what is left of its timeout, not the whole of it', async () => {
    // The first copy is lost (never answered); the hedge at half the timeout is answered.
    const deliveries = await listen('deadline.hedged', (msg, nth) => {
      if (nth === 2) msg.respond(text('second'));
    });
    const mux = createRequestMux(gateway);
    const reply = await mux.request('deadline.hedged', text('x'), headers(), 2000, {
      retryable: true,
      hedgeAfterMs: 1000,
    });
    expect(reply.string()).toBe('second');
    expect(deliveries).toHaveLength(2);
    const [first, second] = deliveries.map(carriedBy);
    expect(first).toBeGreaterThan(1900);
    expect(second).toBeGreaterThan(850);
    expect(second).toBeLessThanOrEqual(1000);
    // What each copy carries ends at the same moment: the gateway's one deadline.
    const ends = deliveries.map((delivery) => delivery.at + carriedBy(delivery));
    expect(Math.abs(ends[1] - ends[0])).toBeLessThan(60);
  });

  it('answers a hedged call with the slower success of one copy, not the quicker 503 of the other', async () => {
    // The first copy waits out an election on its service (a success late); the hedge meets a 503 at once.
    await listen('deadline.503', (msg, nth) => {
      if (nth === 1) setTimeout(() => msg.respond(text('stored')), 900);
      else msg.respond(text('{"status":503}'), errorReply(503));
    });
    const mux = createRequestMux(gateway);
    const reply = await mux.request('deadline.503', text('x'), headers(), 2000, { retryable: true, hedgeAfterMs: 300 });
    expect(reply.string()).toBe('stored');
  });

  it('answers with the 503 once every copy of a hedged call has answered one', async () => {
    const deliveries = await listen('deadline.both503', (msg, nth) => {
      setTimeout(() => msg.respond(text(`{"status":503,"n":${nth}}`), errorReply(503)), nth === 1 ? 500 : 0);
    });
    const mux = createRequestMux(gateway);
    const started = performance.now();
    const reply = await mux.request('deadline.both503', text('x'), headers(), 3000, {
      retryable: true,
      hedgeAfterMs: 200,
    });
    expect(reply.headers?.get(SERVICE_ERROR_CODE_HEADER)).toBe('503');
    expect(deliveries).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('answers a hedged call at its deadline with the 503 it holds when the other copy never answers', async () => {
    await listen('deadline.lost', (msg, nth) => {
      if (nth === 2) msg.respond(text('{"status":503}'), errorReply(503));
    });
    const mux = createRequestMux(gateway);
    const started = performance.now();
    const reply = await mux.request('deadline.lost', text('x'), headers(), 1000, {
      retryable: true,
      hedgeAfterMs: 300,
    });
    expect(reply.headers?.get(SERVICE_ERROR_CODE_HEADER)).toBe('503');
    expect(performance.now() - started).toBeGreaterThan(950);
  });

  it('answers a call sent once with its 503 at once', async () => {
    await listen('deadline.once', (msg) => msg.respond(text('{"status":503}'), errorReply(503)));
    const mux = createRequestMux(gateway);
    const started = performance.now();
    const reply = await mux.request('deadline.once', text('x'), headers(), 2000, {
      retryable: true,
      hedgeAfterMs: 1000,
    });
    expect(reply.headers?.get(SERVICE_ERROR_CODE_HEADER)).toBe('503');
    expect(performance.now() - started).toBeLessThan(500);
  });
});
