import { Counter, Gauge, type Registry } from 'prom-client';
import { PROTOCOL_ERROR_KINDS, type StreamCounters, type StreamCountsSnapshot } from './stream-counters';

/**
 * Registers the streams' metrics on the gateway's registry (createMetrics's `registry`); each is read from the
 * counters when prometheus scrapes, so that an event sent costs a number incremented, not a prom-client call.
 */
export function bindStreamMetrics(registry: Registry, counters: StreamCounters): void {
  const total = (name: string, help: string, read: (counts: StreamCountsSnapshot) => number): void => {
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read(counters.snapshot()));
      },
    });
  };
  new Gauge({
    name: 'restbus_gateway_streams_open',
    help: 'Event streams open (SSE and WebSocket)',
    registers: [registry],
    collect() {
      this.set(counters.snapshot().openStreams);
    },
  });
  total(
    'restbus_gateway_stream_events_total',
    'Events written to stream clients (one per client per event)',
    (c) => c.eventsSent,
  );
  total(
    'restbus_gateway_stream_gaps_total',
    'Gap events given to stream clients that missed events at their bound',
    (c) => c.gaps,
  );
  total('restbus_gateway_stream_cuts_total', 'Stream clients cut at their bound', (c) => c.cuts);
  total('restbus_gateway_streams_refused_total', 'Streams refused at the maximum of open streams', (c) => c.refused);
  new Counter({
    name: 'restbus_gateway_stream_protocol_errors_total',
    help: 'Stream WebSockets closed for what the client sent, by kind: protocol (1002), invalid_utf8 (1007), too_many_parts (1008), too_big (1009)',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const { protocolErrors } = counters.snapshot();
      for (const kind of PROTOCOL_ERROR_KINDS) this.labels(kind).inc(protocolErrors[kind]);
    },
  });
}
