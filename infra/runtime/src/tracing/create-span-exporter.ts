import type { SpanExporter } from '@opentelemetry/sdk-trace-node';
import type { TracingSettings } from './tracing-settings';

/**
 * The OpenTelemetry exporter the settings name: OTLP/HTTP in protobuf or JSON (the endpoint, headers, timeout and
 * compression are the SDK's own OTEL_EXPORTER_OTLP_* variables), or the console. Loaded only when asked for.
 */
export function createSpanExporter(settings: Pick<TracingSettings, 'exporter' | 'protocol'>): SpanExporter {
  /* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded only when tracing is on */
  if (settings.exporter === 'console') {
    const sdk = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
    return new sdk.ConsoleSpanExporter();
  }
  if (settings.protocol === 'http/json') {
    const otlp =
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    return new otlp.OTLPTraceExporter();
  }
  const otlp =
    require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  return new otlp.OTLPTraceExporter();
  /* eslint-enable @typescript-eslint/no-require-imports */
}
