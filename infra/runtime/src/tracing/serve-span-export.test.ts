import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { ROOT_CONTEXT, SpanKind, diag, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import { serveSpanExport } from './serve-span-export';
import { packSpan, type FromExportWorker, type ToExportWorker } from './span-wire';

function endedSpans(count: number): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer('restbus');
  const server = tracer.startSpan('GET /persons', { kind: SpanKind.SERVER });
  for (let i = 1; i < count; i++) {
    tracer.startSpan(`send ${i}`, { kind: SpanKind.CLIENT }, trace.setSpan(ROOT_CONTEXT, server)).end();
  }
  server.end();
  return memory.getFinishedSpans();
}

/** The program's end of the channel: what it posts, and the answers it hears. */
class ProgramEnd {
  readonly heard: FromExportWorker[] = [];
  private waiting: Array<() => void> = [];

  constructor(private readonly port: MessagePort) {
    port.on('message', (message: FromExportWorker) => {
      this.heard.push(message);
      for (const wake of this.waiting.splice(0)) wake();
    });
  }

  post(message: ToExportWorker | unknown): void {
    this.port.postMessage(message);
  }

  async hear(wanted: (message: FromExportWorker) => boolean): Promise<FromExportWorker> {
    for (;;) {
      const found = this.heard.find(wanted);
      if (found) return found;
      await new Promise<void>((wake) => this.waiting.push(wake));
    }
  }
}

/** An exporter that keeps what it was given, and whether it was shut down (the SDK's in-memory one forgets then). */
class KeepingExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  shutDown = false;

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.spans.push(...spans);
    done({ code: ExportResultCode.SUCCESS });
  }

  shutdown(): Promise<void> {
    this.shutDown = true;
    return Promise.resolve();
  }
}

let channel: MessageChannel;
let program: ProgramEnd;
let exporter: KeepingExporter;

beforeEach(() => {
  channel = new MessageChannel();
  program = new ProgramEnd(channel.port2);
  exporter = new KeepingExporter();
  serveSpanExport(
    channel.port1,
    { settings: { exporter: 'otlp', protocol: 'http/protobuf' }, resource: { 'service.name': 'tested' } },
    exporter,
  );
});

afterEach(() => {
  channel.port1.close();
  channel.port2.close();
  diag.disable();
});

describe('the span export worker', () => {
  it('exports the spans of each batch it is posted, of the program resource, and answers a flush once they are out', async () => {
    const spans = endedSpans(5);
    const batch: unknown[] = [];
    for (const span of spans) packSpan(span, batch);
    program.post({ spans: batch, count: spans.length });
    expect(await program.hear((message) => 'taken' in message)).toEqual({ taken: 5 });
    program.post({ flush: 7 });
    await program.hear((message) => 'flushed' in message && message.flushed === 7);
    const exported = exporter.spans;
    expect(exported.map((span) => span.spanContext().spanId)).toEqual(spans.map((span) => span.spanContext().spanId));
    expect(exported.every((span) => span.resource.attributes['service.name'] === 'tested')).toBe(true);
  });

  it('drops a batch it cannot read with a warning, answers it as taken and goes on exporting the next', async () => {
    program.post({ spans: ['GET /', 'not a kind'], count: 1 });
    expect(await program.hear((message) => 'warn' in message)).toMatchObject({
      warn: 'a batch of spans could not be read and was dropped',
      detail: expect.stringContaining('a number expected') as unknown,
    });
    expect(await program.hear((message) => 'taken' in message)).toEqual({ taken: 1 });
    const batch: unknown[] = [];
    const [span] = endedSpans(1);
    packSpan(span, batch);
    program.post({ spans: batch, count: 1 });
    program.post({ flush: 1 });
    await program.hear((message) => 'flushed' in message);
    expect(exporter.spans.map((one) => one.name)).toEqual(['GET /persons']);
  });

  it('exports what it holds when told to stop, then says it stopped', async () => {
    const batch: unknown[] = [];
    for (const span of endedSpans(3)) packSpan(span, batch);
    program.post({ spans: batch, count: 3 });
    program.post({ shutdown: true });
    await program.hear((message) => 'stopped' in message);
    expect(exporter.spans).toHaveLength(3);
    expect(exporter.shutDown).toBe(true);
  });
});
