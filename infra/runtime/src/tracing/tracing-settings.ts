import { RestbusError } from '../errors/restbus-error';

/** How a program exports its spans, read from OpenTelemetry's standard environment variables. */
export interface TracingSettings {
  /** Whether spans are made at all: off unless an exporter is configured (APISIX's default, and the cheapest). */
  enabled: boolean;
  /** `otlp` (OTLP over HTTP) or `console` (each span a line on stdout, for a look without a collector). */
  exporter: 'otlp' | 'console';
  /** OTLP's encoding over HTTP: protobuf is the specification's default; grpc is not offered. */
  protocol: 'http/protobuf' | 'http/json';
}

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;

function readProtocol(env: NodeJS.ProcessEnv): TracingSettings['protocol'] {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = (env[name] ?? '').trim() || 'http/protobuf';
  const known = PROTOCOLS.find((protocol) => protocol === value);
  if (known) return known;
  throw new RestbusError(
    'CONFIG_INVALID',
    `${name} must be http/protobuf or http/json, not ${JSON.stringify(value.slice(0, 40))}` +
      (value === 'grpc'
        ? ' (OTLP over gRPC is not offered: an OpenTelemetry Collector takes OTLP over HTTP on 4318)'
        : ''),
  );
}

/**
 * Tracing is on when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
 * or `OTEL_TRACES_EXPORTER` names an exporter; `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none` turn it off.
 * The rest (the sampler, the service name, resource attributes, headers, timeouts) the SDK reads itself.
 */
export function readTracingSettings(env: NodeJS.ProcessEnv): TracingSettings {
  const off: TracingSettings = { enabled: false, exporter: 'otlp', protocol: 'http/protobuf' };
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return off;
  const named = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  const endpoint = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
  if (named === 'none') return off;
  if (named === 'console') return { enabled: true, exporter: 'console', protocol: 'http/protobuf' };
  if (named !== '' && named !== 'otlp') {
    throw new RestbusError(
      'CONFIG_INVALID',
      `OTEL_TRACES_EXPORTER must be otlp, console or none, not ${JSON.stringify(named.slice(0, 40))}`,
    );
  }
  if (named === '' && !endpoint) return off;
  assertEndpoints(env);
  return { enabled: true, exporter: 'otlp', protocol: readProtocol(env) };
}

/** An endpoint the exporter cannot use would send every span to localhost:4318 instead, without a word: refused. */
function assertEndpoints(env: NodeJS.ProcessEnv): void {
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    const value = env[name]?.trim();
    if (!value) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
      throw new RestbusError(
        'CONFIG_INVALID',
        `${name} must be an http:// or https:// URL (http://jaeger:4318), not ${JSON.stringify(value.slice(0, 80))}`,
      );
    }
  }
}
