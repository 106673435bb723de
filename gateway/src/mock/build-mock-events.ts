import type { ApiEndpoint } from '../openapi/endpoint';
import { createStreamEvent, type StreamEvent } from '../streams/stream-event';
import type { SchemaSampler } from './create-schema-sampler';

/**
 * The events -m sends for a stream operation: its examples of one event, in document order, else one sample of its
 * item schema, else none (the stream then only keeps alive). With a JetStream stream declared, they carry ids 1, 2 …
 * as the real stream's would, so a client's resume (`Last-Event-ID`) can be tried against the mock too.
 */
export function buildMockEvents(endpoint: ApiEndpoint, sampler: SchemaSampler): StreamEvent[] {
  const { stream } = endpoint.model;
  if (!stream) return [];
  let texts = stream.examples.map((example) => JSON.stringify(example.value ?? null));
  if (texts.length === 0 && stream.itemSchema !== undefined) {
    const result = sampler.sample(stream.itemSchema, endpoint.api.schemaRoot);
    if ('sample' in result && result.sample) texts = [result.sample.json];
  }
  return texts.map((data, index) =>
    createStreamEvent({ event: 'message', data, ...(stream.stream !== undefined && { seq: index + 1 }) }),
  );
}
