import { isRestbusError } from '../errors/restbus-error';
import { readTracingSettings } from './tracing-settings';

function refusal(env: NodeJS.ProcessEnv): { code?: string; message: string } {
  try {
    readTracingSettings(env);
  } catch (err) {
    if (isRestbusError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('the settings were taken');
}

describe('readTracingSettings', () => {
  it('leaves tracing off when nothing names an exporter or an endpoint', () => {
    expect(readTracingSettings({}).enabled).toBe(false);
    expect(readTracingSettings({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).enabled).toBe(false);
  });

  it('turns tracing on for an OTLP endpoint, over protobuf unless JSON is asked for', () => {
    expect(readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' })).toEqual({
      enabled: true,
      exporter: 'otlp',
      protocol: 'http/protobuf',
    });
    expect(
      readTracingSettings({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }).protocol,
    ).toBe('http/json');
    // The traces' own variable wins over the general one, as the specification says.
    expect(
      readTracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }).protocol,
    ).toBe('http/protobuf');
  });

  it('turns tracing on for OTEL_TRACES_EXPORTER=otlp or console, and off for none or OTEL_SDK_DISABLED', () => {
    expect(readTracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' }).enabled).toBe(true);
    expect(readTracingSettings({ OTEL_TRACES_EXPORTER: 'console' })).toMatchObject({
      enabled: true,
      exporter: 'console',
    });
    expect(
      readTracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).enabled,
    ).toBe(false);
    expect(
      readTracingSettings({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).enabled,
    ).toBe(false);
  });

  it('refuses a protocol or exporter it cannot use, naming the variable, as a setting the program cannot take', () => {
    const grpc = refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(grpc.code).toBe('CONFIG_INVALID');
    expect(grpc.message).toContain('OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, not "grpc"');
    expect(grpc.message).toContain('4318');
    const zipkin = refusal({ OTEL_TRACES_EXPORTER: 'zipkin' });
    expect(zipkin).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(zipkin.message).toContain('OTEL_TRACES_EXPORTER must be otlp, console or none');
    for (const endpoint of ['h', 'jaeger:4318', 'ftp://c:4318', 'http://', ' ']) {
      if (!endpoint.trim()) continue;
      const wrong = refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      expect(wrong).toMatchObject({ code: 'CONFIG_INVALID' });
      expect(wrong.message).toContain('OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL');
    }
    expect(refusal({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'localhost' }).message).toContain(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    );
    // A hostile value is quoted, its first 40 characters escaped, never echoed whole.
    const long = refusal({ OTEL_TRACES_EXPORTER: `x${'\u0000'.repeat(10_000)}` });
    expect(long.message).toContain('"x\\u0000');
    expect(long.message.length).toBeLessThan(400);
  });
});
