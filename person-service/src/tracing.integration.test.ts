import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, headers as natsHeaders, type NatsConnection } from 'nats';
import {
  OtlpReceiver,
  createRequestMessage,
  freePort,
  killChildren,
  startChild,
  startNatsServer,
  waitFor,
  type Child,
  type ReceivedSpan,
  type TestNatsServer,
} from '@restbus/infra/testing';
import { waitForChild } from './testing/mixed-load';

// Issue 49: one trace from the HTTP call through NATS to the service and its store, exported over OTLP/HTTP to a
// real receiver, by the programs as users run them (`npx tsc -b gateway person-service` builds them).
const PERSON_MAIN = resolve(__dirname, '../dist/main.js');
const GATEWAY_MAIN = resolve(__dirname, '../../gateway/dist/main.js');
const PERSON_API = resolve(__dirname, '../person-api.yml');

const SERVER = 2;
const CLIENT = 3;

let nats: TestNatsServer;
let receiver: OtlpReceiver;
let base: string;
let dir: string;
/** Stands for a service whose first copy of a call is lost (its server died): it answers only the second. */
let lossy: NatsConnection;
const children: Child[] = [];

/** An operation the lossy responder answers, served beside the person API. */
const HEDGED_API = {
  openapi: '3.0.3',
  info: { title: 'hedged', version: '1' },
  paths: { '/hedged': { get: { operationId: 'getHedged', responses: { '200': { description: 'answered' } } } } },
};

/** What every program is given: OpenTelemetry's standard variables, the receiver as the endpoint, quick batches. */
function tracingEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    ...extra,
  };
}

/** The span of `trace` that `matches`, once it came. */
function spanOf(traceId: string, matches: (span: ReceivedSpan) => boolean, what: string): Promise<ReceivedSpan> {
  return receiver.waitForSpan((span) => span.traceId === traceId && matches(span), what);
}

beforeAll(async () => {
  nats = await startNatsServer();
  receiver = await OtlpReceiver.start();
  dir = await mkdtemp(join(tmpdir(), 'restbus-tracing-'));
  await writeFile(join(dir, 'hedged.json'), JSON.stringify(HEDGED_API));
  lossy = await connect({ servers: nats.url });
  const seen = new Set<string>();
  lossy.subscribe('easer.get_/hedged', {
    callback: (_err, msg) => {
      if (!msg.reply) return;
      if (!seen.has(msg.reply)) {
        seen.add(msg.reply);
        return; // the first copy is lost
      }
      msg.respond(JSON.stringify({ status: 200, body: { copy: 2 } }));
    },
  });
  await lossy.flush();
  const service = startChild(
    'person-service',
    process.execPath,
    [PERSON_MAIN, '-n', nats.url, '--store', 'jetstream', '--log-format', 'json'],
    resolve(__dirname, '..'),
    tracingEnv(),
  );
  children.push(service);
  await waitForChild(service, () => service.output().includes('"msg":"answering"'), 'person-service answering');
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const gateway = startChild(
    'gateway',
    process.execPath,
    [
      ...[GATEWAY_MAIN, '-r', PERSON_API, '-r', join(dir, 'hedged.json'), '-n', nats.url, '-u', '-p', String(port)],
      // A reply late by half of it is hedged: a second copy is sent after 1 s.
      ...['--timeout', '2000', '--log-format', 'json'],
    ],
    resolve(__dirname, '..'),
    tracingEnv(),
  );
  children.push(gateway);
  await waitForChild(gateway, () => gateway.output().includes('connected to NATS'), 'the gateway connected');
});

afterAll(async () => {
  killChildren();
  await lossy?.close();
  await receiver?.close();
  await nats?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('one call traced across the gateway, NATS, person-service and JetStream', () => {
  it('exports one tree: the gateway server span, its NATS send, the service span and its store span', async () => {
    const answer = await fetch(`${base}/persons/luke`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'luke', familyName: 'Skywalker', givenName: 'Luke' }),
    });
    expect(answer.status).toBe(200);
    const server = await receiver.waitForSpan(
      (span) => span.service === 'restbus-gateway' && span.name === 'PUT /persons/{personId}',
      "the gateway's server span",
    );
    const { traceId } = server;
    expect(server).toMatchObject({ kind: SERVER, status: { code: 0 } });
    expect(server.parentSpanId).toBeUndefined();
    expect(server.attributes).toMatchObject({
      'http.request.method': 'PUT',
      'http.route': '/persons/{personId}',
      'http.response.status_code': 200,
    });
    const send = await spanOf(traceId, (span) => span.parentSpanId === server.spanId, 'the NATS send');
    expect(send).toMatchObject({
      service: 'restbus-gateway',
      kind: CLIENT,
      name: 'send easer.put_/persons/{personId}',
    });
    expect(send.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': 'easer.put_/persons/{personId}',
      'restbus.reply.status': 200,
    });
    // Sent once: the span is the send, with no event for a further copy.
    expect(send.events).toEqual([]);
    const processed = await spanOf(traceId, (span) => span.parentSpanId === send.spanId, "the service's span");
    expect(processed).toMatchObject({
      service: 'person-service',
      kind: SERVER,
      name: 'process easer.put_/persons/{personId}',
    });
    expect(processed.attributes).toMatchObject({ 'messaging.system': 'nats', 'restbus.reply.status': 200 });
    const stored = await spanOf(traceId, (span) => span.parentSpanId === processed.spanId, 'the store span');
    // A PUT creates the person when the id is free (then puts when it was taken).
    expect(stored).toMatchObject({ service: 'person-service', kind: CLIENT, name: 'create persons' });
    expect(stored.attributes).toMatchObject({ 'db.system.name': 'nats', 'db.collection.name': 'persons' });
    expect(receiver.refused).toEqual([]);
  });

  it("continues the caller's trace, and gives the service the sampled flag it was given", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const answer = await fetch(`${base}/persons`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect(answer.status).toBe(200);
    const server = await spanOf(traceId, (span) => span.kind === SERVER && span.service === 'restbus-gateway', 'span');
    expect(server.parentSpanId).toBe('00f067aa0ba902b7');
    await spanOf(traceId, (span) => span.service === 'person-service', "the service's span");
    // Not sampled by the caller: neither the gateway nor the service exports a span of it.
    const unsampled = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const before = receiver.spans.length;
    const quiet = await fetch(`${base}/persons`, { headers: { traceparent: `00-${unsampled}-00f067aa0ba902b7-00` } });
    expect(quiet.status).toBe(200);
    // A sampled call after it: once its spans are in, the unsampled one's would have been too.
    const marker = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    await fetch(`${base}/persons`, { headers: { traceparent: `00-${marker}-00f067aa0ba902b7-01` } });
    await spanOf(marker, (span) => span.service === 'person-service', "the marker call's service span");
    expect(receiver.spans.slice(before).filter((span) => span.traceId === unsampled)).toEqual([]);
  });

  it("sends an unsampled call on with its server span's own context and the caller's tracestate, sampled flag off", async () => {
    const unsampled = 'cccccccccccccccccccccccccccccccc';
    const sent: string[] = [];
    const watcher = await connect({ servers: nats.url });
    try {
      // Beside the service's queue group, a plain subscriber sees every message of the subject.
      watcher.subscribe('easer.get_/persons', {
        callback: (_err, msg) => {
          const traceparent = msg.headers?.get('traceparent') ?? '';
          if (traceparent.includes(unsampled)) sent.push(`${traceparent} ${msg.headers?.get('tracestate')}`);
        },
      });
      await watcher.flush();
      const answer = await fetch(`${base}/persons?limit=1`, {
        headers: { traceparent: `00-${unsampled}-00f067aa0ba902b7-00`, tracestate: 'vendor=kept' },
      });
      expect(answer.status).toBe(200);
      await waitFor(() => sent.length > 0, { what: 'the unsampled call on the bus' });
    } finally {
      await watcher.close();
    }
    // The id the gateway's request line gives its server span is the parent the service is given.
    const gateway = children[1];
    let serverSpanId: string | undefined;
    await waitFor(
      () => {
        const line = gateway
          .output()
          .split('\n')
          .find((one) => one.includes(`"trace_id":"${unsampled}"`) && one.includes('"span_id"'));
        serverSpanId = line && (JSON.parse(line) as { span_id: string }).span_id;
        return serverSpanId !== undefined;
      },
      { what: "the gateway's request line of the unsampled call" },
    );
    // The caller's tracestate travels on with it.
    expect(sent).toEqual([`00-${unsampled}-${serverSpanId}-00 vendor=kept`]);
    expect(serverSpanId).not.toBe('00f067aa0ba902b7');
  });

  it("records an error answer's stable code on the service's span", async () => {
    const answer = await fetch(`${base}/persons/nobody`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ code: 'NOT_FOUND' });
    const server = await receiver.waitForSpan(
      (span) => span.name === 'GET /persons/{personId}' && span.attributes['http.response.status_code'] === 404,
      "the refused call's server span",
    );
    const processed = await spanOf(
      server.traceId,
      (span) => span.service === 'person-service' && span.kind === SERVER,
      "the service's span",
    );
    expect(processed.attributes).toMatchObject({ 'error.type': 'NOT_FOUND', 'restbus.reply.status': 404 });
    // A 4xx is the client's: no server span is an error for it.
    expect([server.status.code, processed.status.code]).toEqual([0, 0]);
  });

  it('shows both sends of a call whose first copy was lost and whose hedge was answered', async () => {
    const answer = await fetch(`${base}/hedged`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ copy: 2 });
    const send = await receiver.waitForSpan(
      (span) => span.name === 'send easer.get_/hedged',
      'the send span of the hedged call',
    );
    expect(
      send.events.map((event) => [event.attributes['restbus.send.copy'], event.attributes['restbus.send.reason']]),
    ).toEqual([[2, 'hedge']]);
    expect(send.attributes['restbus.reply.status']).toBe(200);
  });

  it('answers as ever, and starts a trace of its own, for a traceparent or tracestate it cannot take', async () => {
    const hostile: Array<Record<string, string>> = [
      { traceparent: `00-${'z'.repeat(32)}-00f067aa0ba902b7-01` },
      { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` },
      { traceparent: `ff-${'c'.repeat(32)}-00f067aa0ba902b7-01` },
      { traceparent: 'x'.repeat(4000) },
      {
        traceparent: `00-${'d'.repeat(32)}-00f067aa0ba902b7-01`,
        tracestate: Array.from({ length: 500 }, (_, i) => `k${i}=v${i}`).join(','),
      },
    ];
    for (const headers of hostile) {
      const answer = await fetch(`${base}/persons?limit=1`, { headers });
      expect(answer.status).toBe(200);
    }
    const invalid = ['z'.repeat(32), '0'.repeat(32), 'c'.repeat(32)];
    expect(receiver.spans.filter((span) => invalid.includes(span.traceId))).toEqual([]);
    expect(receiver.refused).toEqual([]);
  });

  it('gives a service a new trace for a message whose trace headers it cannot read, and answers it', async () => {
    const nc = await connect({ servers: nats.url });
    try {
      const headers = natsHeaders();
      headers.set('traceparent', `00-${'e'.repeat(32)}-${'0'.repeat(16)}-01`);
      headers.set('tracestate', '='.repeat(2000));
      const request = JSON.stringify(createRequestMessage());
      const reply = await nc.request('easer.get_/persons', request, { headers, timeout: 10_000 });
      expect((reply.json() as { status?: number }).status ?? 200).toBe(200);
      const processed = await receiver.waitForSpan(
        (span) => span.service === 'person-service' && span.kind === SERVER && span.parentSpanId === undefined,
        "the service's span of a message without a readable parent",
      );
      expect(processed.traceId).not.toBe('e'.repeat(32));
    } finally {
      await nc.close();
    }
  });

  it('writes the trace and span ids on the log lines of a call, in the gateway and in the service', async () => {
    const [service, gateway] = children;
    const logged = (child: Child, ids: { traceId: string; spanId: string }, text = ''): boolean =>
      child
        .output()
        .split('\n')
        .some(
          (line) =>
            line.includes(`"trace_id":"${ids.traceId}"`) &&
            line.includes(`"span_id":"${ids.spanId}"`) &&
            line.includes(text),
        );
    const called = '1234567890abcdef1234567890abcdef';
    await fetch(`${base}/persons?limit=1`, { headers: { traceparent: `00-${called}-00f067aa0ba902b7-01` } });
    const server = await spanOf(called, (span) => span.kind === SERVER && span.service === 'restbus-gateway', 'span');
    await waitFor(() => logged(gateway, server), { what: "the gateway's request line with the call's ids" });
    // A refusal's own line, written before the answer (not only the request line written after it), names the span.
    const refusedCall = '0fedcba987654321fedcba9876543210';
    const patch = await fetch(`${base}/persons`, {
      method: 'PATCH',
      headers: { traceparent: `00-${refusedCall}-00f067aa0ba902b7-01` },
    });
    expect(patch.status).toBe(405);
    const refusal = await spanOf(refusedCall, (span) => span.kind === SERVER, "the refused call's span");
    await waitFor(() => logged(gateway, refusal, '"msg":"request refused"'), {
      what: "the gateway's refusal line with the call's ids",
    });
    // A message the service refuses (not JSON): its warning is written while the call's span is active.
    const refused = 'fedcba0987654321fedcba0987654321';
    const nc = await connect({ servers: nats.url });
    try {
      const headers = natsHeaders();
      headers.set('traceparent', `00-${refused}-00f067aa0ba902b7-01`);
      const reply = await nc.request('easer.get_/persons', 'not a request message', { headers, timeout: 10_000 });
      expect((reply.json() as { status: number }).status).toBe(400);
    } finally {
      await nc.close();
    }
    const processed = await spanOf(refused, (span) => span.service === 'person-service', "the service's span");
    await waitFor(() => logged(service, processed), { what: "the service's warning with the call's ids" });
  });
});
