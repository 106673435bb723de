import type { Attributes, HrTime, Link, SpanContext, SpanKind } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-node';

/**
 * The ended spans of a program on their way to its export worker: one flat array of strings, numbers and booleans per
 * batch. A flat array is what a worker's message copies cheapest (a span as objects costs the main thread about four
 * times as much to post); the layout is written once, here, by packSpan and read back by unpackSpans:
 *
 *   name, kind, traceId, spanId, traceFlags, traceState ('' for none), parentSpanId ('' for a root), parentIsRemote,
 *   start [s, ns], end [s, ns], duration [s, ns], status code, status message ('' for none),
 *   dropped attributes, events, links, scope name, scope version (''), scope schema URL (''),
 *   attributes (count, then key, value …), events (count, then each: name, time [s, ns], dropped attributes,
 *   attributes), links (count, then each: traceId, spanId, traceFlags, traceState, isRemote, dropped attributes,
 *   attributes).
 */
export type SpanBatch = unknown[];

function packAttributes(attributes: Attributes | undefined, into: SpanBatch): void {
  if (!attributes) {
    into.push(0);
    return;
  }
  const keys = Object.keys(attributes);
  into.push(keys.length);
  for (const key of keys) into.push(key, attributes[key]);
}

/** Appends an ended span to a batch. */
export function packSpan(span: ReadableSpan, into: SpanBatch): void {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  const scope = span.instrumentationScope;
  into.push(
    span.name,
    span.kind,
    context.traceId,
    context.spanId,
    context.traceFlags,
    context.traceState?.serialize() ?? '',
    parent?.spanId ?? '',
    parent?.isRemote === true,
    span.startTime[0],
    span.startTime[1],
    span.endTime[0],
    span.endTime[1],
    span.duration[0],
    span.duration[1],
    span.status.code,
    span.status.message ?? '',
    span.droppedAttributesCount,
    span.droppedEventsCount,
    span.droppedLinksCount,
    scope.name,
    scope.version ?? '',
    scope.schemaUrl ?? '',
  );
  packAttributes(span.attributes, into);
  into.push(span.events.length);
  for (const event of span.events) {
    into.push(event.name, event.time[0], event.time[1], event.droppedAttributesCount ?? 0);
    packAttributes(event.attributes, into);
  }
  into.push(span.links.length);
  for (const link of span.links) {
    const linked = link.context;
    into.push(
      linked.traceId,
      linked.spanId,
      linked.traceFlags,
      linked.traceState?.serialize() ?? '',
      linked.isRemote === true,
      link.droppedAttributesCount ?? 0,
    );
    packAttributes(link.attributes, into);
  }
}

/** Reads a batch back, field by field in packSpan's order. */
class BatchReader {
  private at = 0;

  constructor(private readonly batch: SpanBatch) {}

  get done(): boolean {
    return this.at >= this.batch.length;
  }

  string(): string {
    return this.take('string') as string;
  }

  number(): number {
    return this.take('number') as number;
  }

  boolean(): boolean {
    return this.take('boolean') as boolean;
  }

  time(): HrTime {
    return [this.number(), this.number()];
  }

  attributes(): Attributes {
    const attributes: Attributes = {};
    for (let count = this.number(); count > 0; count--) {
      const key = this.string();
      attributes[key] = this.batch[this.at++] as Attributes[string];
    }
    return attributes;
  }

  /** A batch is written by packSpan alone; a field of another type means it was not, and nothing of it is exported. */
  private take(type: 'string' | 'number' | 'boolean'): unknown {
    const value = this.batch[this.at++];
    if (typeof value !== type) throw new TypeError(`span batch: a ${type} expected at ${this.at - 1}`);
    return value;
  }
}

function readContext(reader: BatchReader): SpanContext {
  const context: SpanContext = { traceId: reader.string(), spanId: reader.string(), traceFlags: reader.number() };
  const state = reader.string();
  if (state !== '') context.traceState = new TraceState(state);
  return context;
}

/**
 * An unpacked span: the exporters read its fields. A class rather than a literal with spreads of optional fields,
 * which made unpacking cost the worker 3 µs a span, as much as half of the SDK's serializing it.
 */
class UnpackedSpan implements ReadableSpan {
  readonly ended = true;
  parentSpanContext: SpanContext | undefined = undefined;
  startTime: HrTime = [0, 0];
  endTime: HrTime = [0, 0];
  duration: HrTime = [0, 0];
  status: ReadableSpan['status'] = { code: 0 };
  attributes: Attributes = {};
  links: Link[] = [];
  events: TimedEvent[] = [];
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  instrumentationScope: ReadableSpan['instrumentationScope'] = { name: '' };

  constructor(
    readonly name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly resource: Resource,
  ) {}

  spanContext(): SpanContext {
    return this.context;
  }
}

/** The spans of a batch, as the exporters read them, of the program's resource. Throws on a batch packSpan did not write. */
export function unpackSpans(batch: SpanBatch, resource: Resource): ReadableSpan[] {
  if (!Array.isArray(batch)) throw new TypeError('span batch: an array expected');
  const reader = new BatchReader(batch);
  const spans: ReadableSpan[] = [];
  while (!reader.done) {
    const span = new UnpackedSpan(reader.string(), reader.number(), readContext(reader), resource);
    const parentSpanId = reader.string();
    const parentIsRemote = reader.boolean();
    if (parentSpanId !== '') {
      const { traceId, traceFlags } = span.spanContext();
      span.parentSpanContext = { traceId, spanId: parentSpanId, traceFlags, isRemote: parentIsRemote };
    }
    span.startTime = reader.time();
    span.endTime = reader.time();
    span.duration = reader.time();
    const statusCode = reader.number();
    const statusMessage = reader.string();
    span.status = statusMessage === '' ? { code: statusCode } : { code: statusCode, message: statusMessage };
    span.droppedAttributesCount = reader.number();
    span.droppedEventsCount = reader.number();
    span.droppedLinksCount = reader.number();
    const scope: { name: string; version?: string; schemaUrl?: string } = { name: reader.string() };
    const scopeVersion = reader.string();
    if (scopeVersion !== '') scope.version = scopeVersion;
    const scopeSchemaUrl = reader.string();
    if (scopeSchemaUrl !== '') scope.schemaUrl = scopeSchemaUrl;
    span.instrumentationScope = scope;
    span.attributes = reader.attributes();
    for (let count = reader.number(); count > 0; count--) {
      const eventName = reader.string();
      const time = reader.time();
      const dropped = reader.number();
      span.events.push({ name: eventName, time, droppedAttributesCount: dropped, attributes: reader.attributes() });
    }
    for (let count = reader.number(); count > 0; count--) {
      const linked = readContext(reader);
      linked.isRemote = reader.boolean();
      const dropped = reader.number();
      span.links.push({ context: linked, droppedAttributesCount: dropped, attributes: reader.attributes() });
    }
    spans.push(span);
  }
  return spans;
}

/** What a program's export worker is started with. */
export interface ExportWorkerData {
  settings: { exporter: 'otlp' | 'console'; protocol: 'http/protobuf' | 'http/json' };
  /** The program's resource (its name, version and the environment's attributes), made once by the program. */
  resource: Attributes;
}

/** A program's messages to its export worker: spans to export, a flush to answer, the stop. */
export type ToExportWorker = { spans: SpanBatch; count: number } | { flush: number } | { shutdown: true };

/** The export worker's answers: spans taken into its queue, a flush or the stop done, a complaint of the SDK's. */
export type FromExportWorker =
  { taken: number } | { flushed: number } | { stopped: true } | { warn: string; detail?: string };
