/**
 * The environments a tracing bench runs its programs in: `off` (no exporter set, whatever this shell has) and `on`
 * (every call sampled, OTLP/HTTP to the receiver; protobuf, the exporter's default, unless OTEL_EXPORTER_OTLP_PROTOCOL
 * says otherwise).
 */
export function tracingEnvironments(receiverUrl: string): { off: NodeJS.ProcessEnv; on: NodeJS.ProcessEnv } {
  const off: NodeJS.ProcessEnv = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_TRACES_EXPORTER: '' };
  const on: NodeJS.ProcessEnv = {
    ...off,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
    OTEL_EXPORTER_OTLP_PROTOCOL: process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    OTEL_TRACES_SAMPLER: 'always_on',
  };
  return { off, on };
}
