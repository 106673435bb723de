import { Registry } from 'prom-client';
import { bindStreamMetrics } from './stream-metrics';
import { createStreamCounters } from './stream-counters';

describe('bindStreamMetrics', () => {
  it('exposes open streams, events sent, gaps, cuts and refusals as they are when scraped', async () => {
    const registry = new Registry();
    const counters = createStreamCounters();
    bindStreamMetrics(registry, counters);
    counters.opened();
    counters.opened();
    counters.closed();
    for (let i = 0; i < 7; i++) counters.sent();
    counters.gap();
    counters.cut();
    counters.refused();
    const text = await registry.metrics();
    expect(text).toContain('restbus_gateway_streams_open 1');
    expect(text).toContain('restbus_gateway_stream_events_total 7');
    expect(text).toContain('restbus_gateway_stream_gaps_total 1');
    expect(text).toContain('restbus_gateway_stream_cuts_total 1');
    expect(text).toContain('restbus_gateway_streams_refused_total 1');
    counters.sent();
    expect(await registry.metrics()).toContain('restbus_gateway_stream_events_total 8');
  });
});
