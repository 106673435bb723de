import type { MessagePort } from 'node:worker_threads';
import { DiagLogLevel, diag } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { createSpanExporter } from './create-span-exporter';
import { toDiagLogger } from './to-diag-logger';
import { unpackSpans, type ExportWorkerData, type FromExportWorker, type ToExportWorker } from './span-wire';

/**
 * The export worker's side: the batches a program posts go into the SDK's BatchSpanProcessor (OTEL_BSP_* as the SDK
 * reads them) and leave through its exporter, so that serializing and sending spans never takes the program's own
 * thread. The SDK's complaints (an export that failed) go back to the program's log.
 */
export function serveSpanExport(
  port: MessagePort,
  data: ExportWorkerData,
  exporter: SpanExporter = createSpanExporter(data.settings),
): void {
  const say = (message: FromExportWorker): void => port.postMessage(message);
  const warn = (message: string, detail?: string): void => {
    say({ warn: message, ...(detail !== undefined && { detail }) });
  };
  diag.setLogger(toDiagLogger(warn), DiagLogLevel.WARN);
  const resource = resourceFromAttributes(data.resource);
  const processor = new BatchSpanProcessor(exporter);
  port.on('message', (message: ToExportWorker) => {
    if ('spans' in message) {
      try {
        for (const span of unpackSpans(message.spans, resource)) processor.onEnd(span);
      } catch (err) {
        warn('a batch of spans could not be read and was dropped', err instanceof Error ? err.message : String(err));
      }
      say({ taken: message.count });
    } else if ('flush' in message) {
      void processor.forceFlush().finally(() => say({ flushed: message.flush }));
    } else if ('shutdown' in message) {
      void processor.shutdown().finally(() => say({ stopped: true }));
    }
  });
}
