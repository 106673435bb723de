import { createClientQueue, type EventSink } from './client-queue';
import { createStreamCounters } from './stream-counters';
import { createStreamEvent, type StreamEvent } from './stream-event';

/** A sink that takes `room` events, then asks to wait until `drain()` is called. */
function createTestSink(room: number): EventSink & {
  written: StreamEvent[];
  cut: jest.Mock;
  drain(room: number): void;
} {
  let left = room;
  let ready: (() => void) | undefined;
  const written: StreamEvent[] = [];
  return {
    written,
    cut: jest.fn(),
    size: (event) => event.sse().length,
    write(event) {
      written.push(event);
      left--;
      return left > 0;
    },
    waitReady(callback) {
      ready = callback;
    },
    drain(more) {
      left = more;
      const callback = ready;
      ready = undefined;
      callback?.();
    },
  };
}

const event = (seq: number): StreamEvent => createStreamEvent({ event: 'message', data: `{"n":${seq}}`, seq });
const names = (events: StreamEvent[]): string[] => events.map((e) => (e.seq === undefined ? e.event : String(e.seq)));

describe('createClientQueue', () => {
  it('writes straight through while the transport takes events', () => {
    const sink = createTestSink(100);
    const counters = createStreamCounters();
    const queue = createClientQueue({ sink, counters, maxEvents: 3, maxBytes: 1 << 20, overflow: 'gap' });
    for (let i = 1; i <= 5; i++) queue.push(event(i));
    expect(names(sink.written)).toEqual(['1', '2', '3', '4', '5']);
    expect(counters.snapshot().eventsSent).toBe(5);
  });

  it('holds events while the transport is full and writes them in order on drain', () => {
    const sink = createTestSink(1);
    const queue = createClientQueue({
      sink,
      counters: createStreamCounters(),
      maxEvents: 10,
      maxBytes: 1 << 20,
      overflow: 'gap',
    });
    for (let i = 1; i <= 4; i++) queue.push(event(i));
    expect(names(sink.written)).toEqual(['1']);
    expect(queue.queued()).toBe(3);
    sink.drain(100);
    expect(names(sink.written)).toEqual(['1', '2', '3', '4']);
    expect(queue.queued()).toBe(0);
  });

  it('drops events past the count bound and then delivers one gap event saying how many were missed', () => {
    const sink = createTestSink(1);
    const counters = createStreamCounters();
    const queue = createClientQueue({ sink, counters, maxEvents: 2, maxBytes: 1 << 20, overflow: 'gap' });
    for (let i = 1; i <= 8; i++) queue.push(event(i));
    // 1 written, 2 and 3 queued, 4..8 dropped.
    sink.drain(100);
    expect(names(sink.written)).toEqual(['1', '2', '3', 'gap']);
    const gap = sink.written[3];
    expect(JSON.parse(gap.data)).toEqual({ missed: 5, firstMissedId: '4', lastMissedId: '8' });
    queue.push(event(9));
    expect(names(sink.written)).toEqual(['1', '2', '3', 'gap', '9']);
    expect(counters.snapshot().gaps).toBe(1);
    expect(sink.cut).not.toHaveBeenCalled();
  });

  it('puts the gap event where the dropped events were when later events fit again', () => {
    const sink = createTestSink(1);
    const queue = createClientQueue({
      sink,
      counters: createStreamCounters(),
      maxEvents: 2,
      maxBytes: 1 << 20,
      overflow: 'gap',
    });
    for (let i = 1; i <= 4; i++) queue.push(event(i)); // 1 written, 2 3 queued, 4 dropped
    sink.drain(1); // 2 written, 3 still queued: room for one more
    queue.push(event(5));
    sink.drain(100);
    expect(names(sink.written)).toEqual(['1', '2', '3', 'gap', '5']);
  });

  it('bounds the queue by bytes as well as by count', () => {
    const sink = createTestSink(1);
    const big = (seq: number): StreamEvent =>
      createStreamEvent({ event: 'message', data: JSON.stringify('x'.repeat(400)), seq });
    const queue = createClientQueue({
      sink,
      counters: createStreamCounters(),
      maxEvents: 1000,
      maxBytes: 1000,
      overflow: 'gap',
    });
    for (let i = 1; i <= 5; i++) queue.push(big(i));
    expect(queue.queued()).toBe(2);
    expect(queue.queuedBytes()).toBeLessThanOrEqual(1000);
  });

  it('cuts the client past the bound under the close policy and writes nothing more', () => {
    const sink = createTestSink(1);
    const counters = createStreamCounters();
    const queue = createClientQueue({ sink, counters, maxEvents: 2, maxBytes: 1 << 20, overflow: 'close' });
    for (let i = 1; i <= 6; i++) queue.push(event(i));
    expect(sink.cut).toHaveBeenCalledTimes(1);
    expect(counters.snapshot().cuts).toBe(1);
    sink.drain(100);
    expect(names(sink.written)).toEqual(['1']);
    expect(queue.queued()).toBe(0);
  });

  it('tells a writer that waits when everything queued has been written', async () => {
    const sink = createTestSink(1);
    const queue = createClientQueue({
      sink,
      counters: createStreamCounters(),
      maxEvents: 10,
      maxBytes: 1 << 20,
      overflow: 'gap',
    });
    expect(queue.whenDrained()).toBeUndefined();
    queue.push(event(1));
    queue.push(event(2));
    const drained = queue.whenDrained();
    expect(drained).toBeInstanceOf(Promise);
    let done = false;
    void drained?.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    sink.drain(100);
    await drained;
    expect(names(sink.written)).toEqual(['1', '2']);
    expect(queue.whenDrained()).toBeUndefined();
  });

  it('writes nothing after it is closed', () => {
    const sink = createTestSink(100);
    const queue = createClientQueue({
      sink,
      counters: createStreamCounters(),
      maxEvents: 2,
      maxBytes: 1 << 20,
      overflow: 'gap',
    });
    queue.close();
    queue.push(event(1));
    expect(sink.written).toEqual([]);
  });
});
