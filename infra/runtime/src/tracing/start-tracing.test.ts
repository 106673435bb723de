import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { OtlpReceiver } from '../testing/otlp-receiver';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

// The exporter loads its HTTP agent with a dynamic import, which jest's module sandbox refuses: the spans are made and
// exported by a Node process of their own, on the built package (`tsc -b`), as a program started with the variables.
const INFRA = resolve(__dirname, '../../dist/index.js');
const PROGRAM = `
const { activeTracer, endSpan, readTracingSettings, startTracing, createLogger } = require(${JSON.stringify(INFRA)});
const { ROOT_CONTEXT, SpanKind, trace } = require('@opentelemetry/api');
const tracing = startTracing(readTracingSettings(process.env), {
  service: 'tested',
  logger: createLogger({ name: 'tested', level: 'warn' }),
});
const tracer = activeTracer();
const parent = tracer.startSpan('GET /persons', {
  kind: SpanKind.SERVER,
  attributes: { 'http.request.method': 'GET', 'http.response.status_code': 503, 'restbus.sampled': true },
});
const child = tracer.startSpan('send easer.get_/persons', { kind: SpanKind.CLIENT }, trace.setSpan(ROOT_CONTEXT, parent));
child.addEvent('send', { 'restbus.send.copy': 2, 'restbus.send.reason': 'hedge' });
endSpan(child, { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'no service answered' });
parent.end();
tracing.shutdown().then(() => {
  console.log(JSON.stringify({ ...parent.spanContext(), stopped: activeTracer() === undefined }));
});
`;

let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await OtlpReceiver.start();
});
afterAll(async () => {
  await receiver.close();
});

describe('startTracing', () => {
  it.each(['http/protobuf', 'http/json'])(
    'exports a span, its child, their attributes, events and error over OTLP/HTTP in %s',
    async (protocol) => {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ['-e', PROGRAM], {
        cwd: __dirname,
        env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol },
        timeout: 30_000,
      });
      expect(stderr).toBe('');
      const { traceId, spanId, stopped } = JSON.parse(stdout) as { traceId: string; spanId: string; stopped: boolean };
      // Stopped, the program makes no more spans.
      expect(stopped).toBe(true);
      const spans = receiver.traceOf(traceId);
      expect(receiver.refused).toEqual([]);
      expect(spans.map((span) => span.name).sort()).toEqual(['GET /persons', 'send easer.get_/persons']);
      expect(spans.find((span) => span.kind === SERVER)).toMatchObject({
        service: 'tested',
        spanId,
        attributes: { 'http.request.method': 'GET', 'http.response.status_code': 503, 'restbus.sampled': true },
      });
      expect(spans.find((span) => span.kind === SERVER)?.parentSpanId).toBeUndefined();
      expect(spans.find((span) => span.kind === CLIENT)).toMatchObject({
        parentSpanId: spanId,
        attributes: { 'restbus.reply.status': 503, 'error.type': 'SERVICE_UNAVAILABLE' },
        status: { code: ERROR, message: 'no service answered' },
        events: [{ name: 'send', attributes: { 'restbus.send.copy': 2, 'restbus.send.reason': 'hedge' } }],
      });
    },
  );
});

describe('OtlpReceiver', () => {
  const post = (body: string | Uint8Array, type: string, path = '/v1/traces') =>
    fetch(`${receiver.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });

  it('refuses what is no trace export request, and keeps nothing of it', async () => {
    const before = receiver.spans.length;
    receiver.refused.length = 0;
    expect((await post(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), 'application/x-protobuf')).status).toBe(
      400,
    );
    expect((await post('{"resourceSpans":', 'application/json')).status).toBe(400);
    expect((await post('{}', 'text/plain')).status).toBe(415);
    expect((await post('{}', 'application/json', '/v1/metrics')).status).toBe(404);
    expect(receiver.refused).toHaveLength(4);
    expect(receiver.spans).toHaveLength(before);
  });
});
