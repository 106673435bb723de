import { DiagLogLevel, diag } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { setActiveTracer } from './spans';
import { toDiagLogger } from './to-diag-logger';
import type { TracingSettings } from './tracing-settings';

/** A program's tracing while it runs: what its stop calls, so that the last spans leave before it exits. */
export interface Tracing {
  readonly enabled: boolean;
  /** Sends the spans still queued and stops exporting. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { enabled: false, shutdown: () => Promise.resolve() };

/**
 * Registers OpenTelemetry's SDK for this process when the settings turn tracing on: spans batched and exported over
 * OTLP/HTTP (protobuf or JSON, as OTEL_EXPORTER_OTLP_PROTOCOL says) or to the console by a worker thread
 * (WorkerSpanProcessor), so that the program's own thread only makes them, the sampler as
 * OTEL_TRACES_SAMPLER says (parent-based always-on by default), the resource named `service` unless OTEL_SERVICE_NAME
 * or OTEL_RESOURCE_ATTRIBUTES says otherwise. The SDK is loaded only then: tracing off loads none of it.
 */
export function startTracing(
  settings: TracingSettings,
  program: {
    service: string;
    version?: string;
    logger: Logger;
    /**
     * Whether a span stays active across awaits (the API's context manager on AsyncLocalStorage), as code a program
     * runs for someone else needs (a service's handler, a mock's implementation: their spans and log lines join the
     * call's). Off for a program that passes its parents itself (the gateway): AsyncLocalStorage, once used, costs
     * every promise of the process a hook.
     */
    activeSpans?: boolean;
  },
): Tracing {
  if (!settings.enabled) return OFF;
  /* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded only when tracing is on */
  const sdk = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const resources = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { WorkerSpanProcessor } = require('./worker-span-processor') as typeof import('./worker-span-processor');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const named = resources.resourceFromAttributes({
    'service.name': program.service,
    ...(program.version !== undefined && { 'service.version': program.version }),
  });
  // The environment's attributes last: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the program's name.
  const resource = resources
    .defaultResource()
    .merge(named)
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const tracingLogger = program.logger.child({ component: 'tracing' });
  // The SDK's complaints and the export worker's, as warnings of the program's log.
  const warn = (message: string, detail?: string): void => tracingLogger.warn({ detail }, message);
  const processor = new WorkerSpanProcessor({
    settings,
    resource: resource.attributes,
    warn,
  });
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors: [processor] });
  diag.setLogger(toDiagLogger(warn), DiagLogLevel.WARN);
  // The API's globals: the W3C trace context propagator and (activeSpans) a context manager on AsyncLocalStorage, so
  // that a span a handler makes with the API is a child of the span restbus opened for its call.
  provider.register(program.activeSpans === false ? { contextManager: null } : {});
  setActiveTracer(true);
  return {
    enabled: true,
    shutdown: async () => {
      setActiveTracer(false);
      // A collector that is away at the end costs the last spans, never a failed stop.
      await provider.shutdown().catch((err: unknown) => {
        program.logger.warn({ err }, 'the last spans could not be sent');
      });
    },
  };
}
