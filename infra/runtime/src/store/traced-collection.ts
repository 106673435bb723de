import { SpanKind, trace, type Span, type Tracer } from '@opentelemetry/api';
import { readErrorCode } from '../errors/read-caught-error';
import { endSpan } from '../tracing/spans';
import type { Collection, Page, PageRequest, Read } from './collection';

/**
 * A collection whose operations are spans of the call that asks for them (a client span each, `get persons`, named by
 * the database conventions with NATS as the system): in a trace, what a handler waited for in its store. An operation
 * outside any call (a service's start) makes no span. Wrapped around a service's store only while tracing is on.
 */
export class TracedCollection<T> implements Collection<T> {
  constructor(
    private readonly inner: Collection<T>,
    private readonly tracer: Tracer,
    /** The bucket (JetStream key-value) or `memory`: the collection's name in the spans. */
    private readonly bucket: string,
    private readonly system: 'nats' | 'memory',
  ) {}

  list(page?: PageRequest): Promise<Page<T>> {
    return this.traced('list', () => this.inner.list(page), markStale);
  }

  get(id: string): Promise<Read<T | undefined>> {
    return this.traced('get', () => this.inner.get(id), markStale);
  }

  create(id: string, value: T): Promise<boolean> {
    return this.traced('create', () => this.inner.create(id, value));
  }

  put(id: string, value: T): Promise<void> {
    return this.traced('put', () => this.inner.put(id, value));
  }

  remove(id: string): Promise<boolean> {
    return this.traced('remove', () => this.inner.remove(id));
  }

  clear(): Promise<void> {
    return this.traced('clear', () => this.inner.clear());
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private traced<R>(operation: string, run: () => Promise<R>, describe?: (result: R, span: Span) => void): Promise<R> {
    if (!trace.getActiveSpan()) return run();
    const attributes = {
      'db.system.name': this.system,
      'db.operation.name': operation,
      'db.collection.name': this.bucket,
    };
    return this.tracer.startActiveSpan(
      `${operation} ${this.bucket}`,
      { kind: SpanKind.CLIENT, attributes },
      async (span): Promise<R> => {
        try {
          const result = await run();
          describe?.(result, span);
          span.end();
          return result;
        } catch (err) {
          endSpan(span, { code: readErrorCode(err) ?? 'INTERNAL' });
          throw err;
        }
      },
    );
  }
}

/** A read answered from the service's own copy, its latest write unconfirmed: worth seeing in a slow trace. */
function markStale(read: { stale: boolean }, span: Span): void {
  if (read.stale) span.setAttribute('restbus.store.stale', true);
}
