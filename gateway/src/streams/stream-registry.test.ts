import { isRestbusError } from '@restbus/infra';
import { createStreamCounters } from './stream-counters';
import { createStreamRegistry } from './stream-registry';
import type { StreamClient } from './stream-client';

function createTestClient(): StreamClient & { ended: number; finish(): void } {
  const callbacks: (() => void)[] = [];
  const client = {
    ended: 0,
    deliver: () => undefined,
    end: () => {
      client.ended++;
      client.finish();
    },
    onEnd: (callback: () => void) => void callbacks.push(callback),
    finish: () => callbacks.splice(0).forEach((callback) => callback()),
  };
  return client;
}

describe('createStreamRegistry', () => {
  it('refuses a stream past the maximum with a 5xx that asks to retry later, and counts it', () => {
    const counters = createStreamCounters();
    const registry = createStreamRegistry({ maxOpen: 2, counters });
    registry.reserve();
    registry.reserve();
    let refusal: unknown;
    try {
      registry.reserve();
    } catch (err) {
      refusal = err;
    }
    expect(isRestbusError(refusal) && refusal.status >= 500 && refusal.headers['retry-after']).toBeTruthy();
    expect(counters.snapshot().refused).toBe(1);
  });

  it('frees a place when a reservation is released (the service said no) or its stream ends', () => {
    const registry = createStreamRegistry({ maxOpen: 1, counters: createStreamCounters() });
    registry.reserve().release();
    const client = createTestClient();
    const detach = jest.fn();
    registry.reserve().track(client, detach);
    expect(registry.open()).toBe(1);
    expect(() => registry.reserve()).toThrow();
    client.finish();
    expect(detach).toHaveBeenCalledTimes(1);
    expect(registry.open()).toBe(0);
    registry.reserve();
  });

  it('ends every open stream on endAll (shutdown, reload), which leaves their feeds', () => {
    const registry = createStreamRegistry({ maxOpen: 10, counters: createStreamCounters() });
    const clients = [createTestClient(), createTestClient()];
    const detach = jest.fn();
    for (const client of clients) registry.reserve().track(client, detach);
    registry.endAll();
    expect(clients.map((c) => c.ended)).toEqual([1, 1]);
    expect(detach).toHaveBeenCalledTimes(2);
    expect(registry.open()).toBe(0);
  });
});
