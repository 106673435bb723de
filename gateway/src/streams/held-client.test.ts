import { createHeldClient } from './held-client';
import { createStreamEvent, type StreamEvent } from './stream-event';
import type { StreamClient } from './stream-client';

function createTestClient(): StreamClient & { events: StreamEvent[] } {
  const events: StreamEvent[] = [];
  return { events, deliver: (e) => void events.push(e), end: () => undefined, onEnd: () => undefined };
}
const event = (seq: number): StreamEvent => createStreamEvent({ event: 'message', data: String(seq), seq });

describe('createHeldClient', () => {
  it('keeps events until released, then gives them and every later one to the real client in order', () => {
    const held = createHeldClient({ maxEvents: 10 });
    held.deliver(event(1));
    held.deliver(event(2));
    const client = createTestClient();
    client.deliver(createStreamEvent({ event: 'message', data: '{"snapshot":true}' }));
    held.release(client);
    held.deliver(event(3));
    expect(client.events.map((e) => e.data)).toEqual(['{"snapshot":true}', '1', '2', '3']);
  });

  it('past its bound gives a gap event in place of what it could not keep', () => {
    const held = createHeldClient({ maxEvents: 2 });
    for (let seq = 1; seq <= 5; seq++) held.deliver(event(seq));
    const client = createTestClient();
    held.release(client);
    expect(client.events.map((e) => e.event)).toEqual(['message', 'message', 'gap']);
    expect(JSON.parse(client.events[2].data)).toEqual({ missed: 3, firstMissedId: '3', lastMissedId: '5' });
  });

  it('passes end and onEnd to the real client once released', () => {
    const held = createHeldClient({ maxEvents: 2 });
    const ended = jest.fn();
    held.onEnd(ended);
    const client = createTestClient();
    client.onEnd = (callback) => callback();
    held.release(client);
    expect(ended).toHaveBeenCalledTimes(1);
  });
});
