import { connect, Events, headers, type NatsConnection } from 'nats';
import { RestbusError } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { createRequestMux } from './create-request-mux';

let server: TestNatsServer;
let nc: NatsConnection;
let service: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  service = await connect({ servers: server.url });
  // Echoes the payload after the delay in milliseconds that the payload names.
  service.subscribe('echo', {
    callback: (_err, msg) => setTimeout(() => msg.respond(msg.data), Number(msg.string())),
  });
  await service.flush();
});
afterAll(async () => {
  await nc?.close();
  await service?.close();
  await server?.dispose();
});

const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const codeOf = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'resolved',
    (err: unknown) => (err instanceof RestbusError ? err.code : String(err)),
  );

describe('createRequestMux', () => {
  it('pairs each reply with its request when many are in flight', async () => {
    const mux = createRequestMux(nc);
    const delays = Array.from({ length: 50 }, (_, i) => String((i * 7) % 30));
    const replies = await Promise.all(delays.map((delay) => mux.request('echo', text(delay), headers(), 2000)));
    expect(replies.map((reply) => reply.string())).toEqual(delays);
    expect(mux.pending()).toBe(0);
  });

  it('hands the calls of one event-loop turn to nats.js together, once the turn is over', async () => {
    const own = await connect({ servers: server.url });
    const mux = createRequestMux(own);
    const published: string[] = [];
    const publish = own.publish.bind(own);
    own.publish = (subject, data, options) => {
      published.push(new TextDecoder().decode(data as Uint8Array));
      publish(subject, data, options);
    };
    const calls = ['1', '2', '3'].map((delay) => mux.request('echo', text(delay), headers(), 2000));
    // Nothing yet: nats.js would write each call alone if it had each one in a microtask of its own.
    expect(published).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(published).toEqual(['1', '2', '3']);
    expect((await Promise.all(calls)).map((reply) => reply.string())).toEqual(['1', '2', '3']);
    await own.close();
  });

  // The mux's clock is jest's in these two (the network and setImmediate stay real): a timeout comes exactly when the
  // test moves the clock, and a rejection while the clock stands still came at once.
  it('rejects with NO_RESPONDER at once when nobody listens on the subject', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const mux = createRequestMux(nc);
      // The clock never moves: the 2000 ms timeout cannot be what answers.
      expect(await codeOf(mux.request('nobody.here', text('x'), headers(), 2000))).toBe('NO_RESPONDER');
    } finally {
      jest.useRealTimers();
    }
  });

  it('rejects with UPSTREAM_TIMEOUT no earlier than the timeout, and ignores the late reply', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const mux = createRequestMux(nc);
      let outcome = 'pending';
      // The echo service answers after 300 ms of the same clock.
      const call = codeOf(mux.request('echo', text('300'), headers(), 100)).then((code) => (outcome = code));
      await new Promise((resolve) => setImmediate(resolve));
      // Past these two round trips the service holds the call: its answer waits on the clock too.
      await nc.flush();
      await service.flush();
      jest.advanceTimersByTime(99);
      await nc.flush();
      expect(outcome).toBe('pending');
      // The mux sweeps its calls every 25 ms: by then the timeout has passed, and not the service's 300 ms.
      jest.advanceTimersByTime(25);
      await call;
      expect(outcome).toBe('UPSTREAM_TIMEOUT');
      jest.advanceTimersByTime(300);
      await service.flush();
      await nc.flush();
      expect(mux.pending()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('rejects what is in flight with NATS_UNAVAILABLE when the connection closes', async () => {
    const own = await connect({ servers: server.url });
    const mux = createRequestMux(own);
    const pending = codeOf(mux.request('echo', text('500'), headers(), 2000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await own.close();
    expect(await pending).toBe('NATS_UNAVAILABLE');
  });
});

describe('createRequestMux with a hedged call', () => {
  // Drops the first request it gets on each payload, as a NATS node that dies with a call in it does.
  const seen = new Map<string, number>();
  beforeAll(async () => {
    service.subscribe('lossy', {
      callback: (_err, msg) => {
        const count = (seen.get(msg.string()) ?? 0) + 1;
        seen.set(msg.string(), count);
        if (count > 1) msg.respond(msg.data);
      },
    });
    await service.flush();
  });

  it('sends a hedged call once more when its reply is late, and is answered by the second', async () => {
    const mux = createRequestMux(nc);
    const reply = await mux.request('lossy', text('hedged'), headers(), 2000, { retryable: false, hedgeAfterMs: 100 });
    expect(reply.string()).toBe('hedged');
    expect(seen.get('hedged')).toBe(2);
  });

  it('sends a call that is not hedged only once, even when it is retryable', async () => {
    const mux = createRequestMux(nc);
    expect(await codeOf(mux.request('lossy', text('once'), headers(), 300, { retryable: true }))).toBe(
      'UPSTREAM_TIMEOUT',
    );
    // On a busy machine the timeout can come before the one copy reached the service: it reaches it, and no other.
    await nc.flush();
    await service.flush();
    expect(seen.get('once')).toBe(1);
  });

  it('answers a hedged call with the first of its two replies and drops the other', async () => {
    const mux = createRequestMux(nc);
    let deliveries = 0;
    const slow = service.subscribe('slow', {
      callback: (_err, msg) => {
        const nth = ++deliveries;
        setTimeout(() => msg.respond(text(String(nth))), 200);
      },
    });
    await service.flush();
    try {
      const reply = await mux.request('slow', text('x'), headers(), 2000, { retryable: false, hedgeAfterMs: 50 });
      expect(reply.string()).toBe('1');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(deliveries).toBe(2);
      expect(mux.pending()).toBe(0);
    } finally {
      slow.unsubscribe();
    }
  });
});

describe('createRequestMux across a lost connection', () => {
  it('sends a retryable call made while the connection was down once when it is back, and another call never', async () => {
    const own = await startNatsServer();
    const conn = await connect({ servers: own.url, maxReconnectAttempts: -1, reconnectTimeWait: 50 });
    try {
      // The responder shares the mux's connection: nats.js subscribes it again before anything is published on
      // the new connection, so the call cannot meet "no responders" while a second client is reconnecting.
      const deliveries = new Map<string, number>();
      conn.subscribe('count', {
        callback: (_err, msg) => {
          deliveries.set(msg.string(), (deliveries.get(msg.string()) ?? 0) + 1);
          msg.respond(msg.data);
        },
      });
      await conn.flush();
      const mux = createRequestMux(conn);
      const disconnected = (async () => {
        for await (const status of conn.status()) if (status.type === Events.Disconnect) return;
      })();
      await own.stop();
      await disconnected;
      const get = mux.request('count', text('get'), headers(), 5000, { retryable: true });
      const post = codeOf(mux.request('count', text('post'), headers(), 1000));
      await own.start();
      expect((await get).string()).toBe('get');
      expect(await post).toBe('NATS_UNAVAILABLE');
      // nats.js empties its outbound buffer at each connection attempt: what was published while the server was
      // away never went out, and only the mux's second publish did.
      expect(deliveries).toEqual(new Map([['get', 1]]));
    } finally {
      await conn.close();
      await own.dispose();
    }
  });

  /**
   * A server of its own that the test stops and starts, a connection to it that reconnects at once, a service on
   * that connection that drops the copies `drop` names (as the node that died, or a service still moving off it,
   * loses them), and a mux; `copies` counts the copies of each payload that reached the service.
   */
  async function startLossyLink(drop: (payload: string, nth: number) => boolean) {
    const own = await startNatsServer();
    const conn = await connect({ servers: own.url, maxReconnectAttempts: -1, reconnectTimeWait: 50 });
    const copies = new Map<string, number>();
    conn.subscribe('lossy-link', {
      callback: (_err, msg) => {
        const nth = (copies.get(msg.string()) ?? 0) + 1;
        copies.set(msg.string(), nth);
        if (!drop(msg.string(), nth)) msg.respond(msg.data);
      },
    });
    await conn.flush();
    const reconnected = async (): Promise<void> => {
      for await (const status of conn.status()) if (status.type === Events.Reconnect) return;
    };
    /** Restarts the server once the first copy of `payload` has reached the service. */
    const restartAfterFirstCopy = async (payload: string): Promise<void> => {
      while (!copies.has(payload)) await new Promise((resolve) => setTimeout(resolve, 10));
      const back = reconnected();
      await own.stop();
      await own.start();
      await back;
    };
    return {
      mux: createRequestMux(conn),
      copies,
      restartAfterFirstCopy,
      async stop() {
        await conn.close();
        await own.dispose();
      },
    };
  }

  it('hedges a call again after its resend on the new connection, and is answered when the resend was lost too', async () => {
    const link = await startLossyLink((payload, nth) => payload === 'lost twice' && nth <= 2);
    try {
      // Timeout and hedge as the gateway's policy has them: the hedge at half the timeout.
      const call = link.mux.request('lossy-link', text('lost twice'), headers(), 6000, {
        retryable: true,
        hedgeAfterMs: 3000,
      });
      await link.restartAfterFirstCopy('lost twice');
      expect((await call).string()).toBe('lost twice');
      // The first copy and the resend were dropped; the hedge armed again after the resend answered it.
      expect(link.copies.get('lost twice')).toBe(3);
    } finally {
      await link.stop();
    }
  });

  it('answers a call that was waiting when the connection was lost NATS_UNAVAILABLE at its deadline, not UPSTREAM_TIMEOUT, though it was sent again; one made after still times out', async () => {
    const link = await startLossyLink((payload) => payload === 'never' || payload === 'after');
    try {
      const before = codeOf(link.mux.request('lossy-link', text('never'), headers(), 5000, { retryable: true }));
      await link.restartAfterFirstCopy('never');
      expect(await codeOf(link.mux.request('lossy-link', text('after'), headers(), 300, { retryable: true }))).toBe(
        'UPSTREAM_TIMEOUT',
      );
      expect(await before).toBe('NATS_UNAVAILABLE');
      // It was sent again on the new connection and that copy reached the service: still the bus's failure.
      expect(link.copies.get('never')).toBe(2);
    } finally {
      await link.stop();
    }
  });
});
