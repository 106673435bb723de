import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { TraceFlags, type Attributes } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { TracingSettings } from './tracing-settings';
import {
  packSpan,
  type ExportWorkerData,
  type FromExportWorker,
  type SpanBatch,
  type ToExportWorker,
} from './span-wire';

/** Spans packed before a batch is posted at once, and how long a smaller batch waits for more. */
const POST_AT = 256;
const POST_AFTER_MS = 20;
/** Spans the program holds for its worker (packed or posted, not yet taken) before it drops new ones. */
const MAX_HELD = 2048;
/** The SDK's export timeout (30 s) and a margin: a worker that has not stopped by then is ended with what it holds. */
const STOP_TIMEOUT_MS = 35_000;

export interface WorkerSpanProcessorOptions {
  settings: Pick<TracingSettings, 'exporter' | 'protocol'>;
  resource: Attributes;
  /** The SDK's complaints from the worker, and the processor's own (spans dropped, the worker gone). */
  warn: (message: string, detail?: string) => void;
  /** The worker's entry; the built one beside this file by default. */
  entry?: string;
  stopTimeoutMs?: number;
}

/**
 * The span processor of a traced program: each ended, sampled span is packed into a flat batch (span-wire) and posted
 * to a worker thread that batches and exports it with the SDK's BatchSpanProcessor and OTLP exporter, as the other
 * languages' SDKs export on a thread of their own. Serializing a span costs the exporter more than making it did; on
 * the program's thread that was half of what tracing cost a gateway's call. Bounded: while the worker falls behind by
 * MAX_HELD spans, new ones are dropped and counted, never queued without end.
 */
export class WorkerSpanProcessor implements SpanProcessor {
  private readonly worker: Worker;
  private readonly warn: (message: string, detail?: string) => void;
  private readonly stopTimeoutMs: number;
  private batch: SpanBatch = [];
  private packed = 0;
  /** Posted to the worker, not yet taken into its queue. */
  private posted = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly flushes = new Map<number, () => void>();
  private lastFlush = 0;
  private stopped: (() => void) | undefined;
  private stopping: Promise<void> | undefined;
  private gone = false;
  /** Flushes and the stop waiting for the worker now: while there are any, the worker keeps the program alive. */
  private waiting = 0;

  constructor(options: WorkerSpanProcessorOptions) {
    this.warn = options.warn;
    this.stopTimeoutMs = options.stopTimeoutMs ?? STOP_TIMEOUT_MS;
    const workerData: ExportWorkerData = { settings: options.settings, resource: options.resource };
    this.worker = new Worker(options.entry ?? join(__dirname, 'span-export-worker-main.js'), { workerData });
    // The worker never keeps a program alive by itself: a flush and the stop hold it while they wait for it.
    this.worker.unref();
    this.worker.on('message', (message: FromExportWorker) => this.hear(message));
    this.worker.on('error', (err) => this.lose(`the span export worker failed: ${err.message}`));
    this.worker.on('exit', () => this.lose(this.stopping ? undefined : 'the span export worker stopped'));
  }

  onStart(_span: Span): void {
    // Spans are packed when they end, whole.
  }

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0 || this.gone || this.stopping) return;
    if (this.packed + this.posted >= MAX_HELD) {
      if (this.dropped++ === 0) this.warn(`spans dropped: the export worker is ${MAX_HELD} spans behind`);
      return;
    }
    packSpan(span, this.batch);
    this.packed++;
    if (this.packed >= POST_AT) this.post();
    else this.timer ??= setTimeout(() => this.post(), POST_AFTER_MS).unref();
  }

  /** Posts what is packed and waits until the worker has exported everything it holds. */
  forceFlush(): Promise<void> {
    this.post();
    if (this.gone) return Promise.resolve();
    const id = ++this.lastFlush;
    return this.holding(
      new Promise<void>((done) => {
        this.flushes.set(id, done);
        this.send({ flush: id });
      }),
    );
  }

  /** Posts what is packed, lets the worker export it and stop, and ends the worker. */
  shutdown(): Promise<void> {
    this.stopping ??= this.stop();
    return this.stopping;
  }

  private async stop(): Promise<void> {
    this.post();
    if (!this.gone) {
      let timer: NodeJS.Timeout | undefined;
      await this.holding(
        new Promise<void>((done) => {
          this.stopped = done;
          timer = setTimeout(() => {
            this.warn(`the span export worker did not stop within ${this.stopTimeoutMs} ms: its spans are lost`);
            done();
          }, this.stopTimeoutMs);
          this.send({ shutdown: true });
        }),
      );
      clearTimeout(timer);
    }
    if (this.dropped > 0) this.warn(`${this.dropped} spans were dropped while the export worker was behind`);
    await this.worker.terminate();
  }

  private post(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.packed === 0 || this.gone) return;
    this.send({ spans: this.batch, count: this.packed });
    this.posted += this.packed;
    this.batch = [];
    this.packed = 0;
  }

  private send(message: ToExportWorker): void {
    this.worker.postMessage(message);
  }

  private hear(message: FromExportWorker): void {
    if ('taken' in message) this.posted -= message.taken;
    else if ('flushed' in message) this.settleFlush(message.flushed);
    else if ('stopped' in message) this.stopped?.();
    else this.warn(message.warn, message.detail);
  }

  private settleFlush(id: number): void {
    this.flushes.get(id)?.();
    this.flushes.delete(id);
  }

  /** Keeps the program alive while it waits for the worker's answer. */
  private async holding(answer: Promise<void>): Promise<void> {
    if (this.waiting++ === 0) this.worker.ref();
    try {
      await answer;
    } finally {
      if (--this.waiting === 0 && !this.gone) this.worker.unref();
    }
  }

  /** The worker is gone: what waited for it is let go, and spans are no longer packed. */
  private lose(why: string | undefined): void {
    if (this.gone) return;
    this.gone = true;
    if (why) this.warn(why);
    for (const id of [...this.flushes.keys()]) this.settleFlush(id);
    this.stopped?.();
    this.batch = [];
    this.packed = 0;
  }
}
