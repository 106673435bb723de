import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Link } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import { packSpan, unpackSpans } from './span-wire';

/** What an exporter reads of a span (it writes a missing drop count as 0, a parent not said remote as local). */
function exported(span: ReadableSpan): unknown {
  const context = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    context: { ...context, traceState: context.traceState?.serialize() },
    parent: span.parentSpanContext && {
      spanId: span.parentSpanContext.spanId,
      remote: span.parentSpanContext.isRemote === true,
    },
    times: [span.startTime, span.endTime, span.duration],
    status: span.status,
    attributes: span.attributes,
    events: span.events.map((event) => ({ ...event, droppedAttributesCount: event.droppedAttributesCount ?? 0 })),
    links: span.links.map((link) => ({
      ...link,
      droppedAttributesCount: link.droppedAttributesCount ?? 0,
      context: { ...link.context, traceState: link.context.traceState?.serialize() },
    })),
    scope: span.instrumentationScope,
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
  };
}

function makeSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(memory)],
    spanLimits: { attributeCountLimit: 8 },
  });
  const tracer = provider.getTracer('restbus', '1.2.3', { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' });
  const remote = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 1,
    traceState: new TraceState('vendor=1,other=two'),
    isRemote: true,
  });
  const link: Link = {
    context: { traceId: 'abcdefabcdefabcdefabcdefabcdef01', spanId: '00f067aa0ba902b7', traceFlags: 0, isRemote: true },
    attributes: { 'link.kind': 'follows' },
  };
  const server = tracer.startSpan(
    'GET /persons/{personId}',
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', 'url.path': '/persons/ü' }, links: [link] },
    remote,
  );
  const send = tracer.startSpan(
    'send easer.get_/persons',
    { kind: SpanKind.CLIENT, attributes: { tags: ['a', 'b'], ratio: 0.5, retried: false } },
    trace.setSpan(ROOT_CONTEXT, server),
  );
  send.addEvent('send', { 'restbus.send.copy': 2, 'restbus.send.reason': 'hedge' });
  send.addEvent('no responder');
  send.setStatus({ code: SpanStatusCode.ERROR, message: 'no service answered' });
  send.end();
  // Over the attribute limit: the SDK drops some and counts them, and the count travels too.
  for (let i = 0; i < 10; i++) server.setAttribute(`extra.${i}`, i);
  server.setStatus({ code: SpanStatusCode.OK });
  server.end();
  return memory.getFinishedSpans();
}

describe('the span wire between a program and its export worker', () => {
  it('carries every field an exporter reads: ids, trace state, parents, times, attributes, events, links, status, scope and drop counts', () => {
    const spans = makeSpans();
    expect(spans[1].droppedAttributesCount).toBeGreaterThan(0);
    const batch: unknown[] = [];
    for (const span of spans) packSpan(span, batch);
    const resource = resourceFromAttributes({ 'service.name': 'tested' });
    const back = unpackSpans(batch, resource);
    expect(back.map(exported)).toEqual(spans.map(exported));
    expect(back.every((span) => span.resource === resource && span.ended)).toBe(true);
    // A root's span has no parent, a remote parent stays remote.
    expect(back[1].parentSpanContext).toMatchObject({ spanId: 'b7ad6b7169203331', isRemote: true });
  });

  it('is a flat array of strings, numbers and booleans, which a worker message copies without objects', () => {
    const batch: unknown[] = [];
    for (const span of makeSpans()) packSpan(span, batch);
    const kinds = new Set(batch.map((value) => (Array.isArray(value) ? 'array attribute' : typeof value)));
    expect([...kinds].sort()).toEqual(['array attribute', 'boolean', 'number', 'string']);
  });

  it.each([
    ['not an array', { spans: 1 }],
    ['a field of the wrong type', ['GET /', 'one']],
    ['a batch cut short', ['GET /', 1, 'abc']],
    [
      'an attribute count larger than the batch',
      ['GET /', 1, 't', 's', 1, '', '', false, 1, 2, 3, 4, 5, 6, 0, '', 0, 0, 0, 'x', '', '', 99],
    ],
  ])('refuses a batch packSpan did not write (%s) with an error, not a span', (_name, batch) => {
    expect(() => unpackSpans(batch as unknown[], resourceFromAttributes({}))).toThrow(TypeError);
  });
});
