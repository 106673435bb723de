import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { connect, headers as natsHeaders } from 'nats';
import {
  OtlpReceiver,
  createRequestMessage,
  killChildren,
  startChild,
  startNatsServer,
  waitFor,
  type Child,
  type TestNatsServer,
} from '@restbus/infra/testing';
import { generateService } from './generate-service';

// Issue 49: a service written by `rest-tool generate-service` exports its spans as soon as OpenTelemetry's variables
// say where, with no line of tracing code in it: the generated main runs the executive, which starts the SDK.
const root = resolve(__dirname, '../../..');
const SERVER = 2;

let scratch: string;
let nats: TestNatsServer;
let receiver: OtlpReceiver;
let service: Child;

beforeAll(async () => {
  await mkdir(join(root, '.scratch'), { recursive: true });
  scratch = await mkdtemp(join(root, '.scratch', 'generated-tracing-'));
  const dir = join(scratch, 'traced-person');
  await generateService({ cwd: root, file: join(root, 'person-service/person-api.yml'), folder: dir });
  // The folder as its user builds it (`npm run build`), the handlers left as the stubs it was written with.
  await promisify(execFile)(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir], { timeout: 120_000 });
  nats = await startNatsServer();
  receiver = await OtlpReceiver.start();
  service = startChild('generated service', process.execPath, [join(dir, 'dist/main.js'), '-n', nats.url], dir, {
    ...process.env,
    // No protocol: the exporter's default, protobuf.
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
});

afterAll(async () => {
  killChildren();
  await receiver?.close();
  await nats?.dispose();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

it("exports a span for each call it handles, a child of the caller's, named after its subject and reply", async () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const nc = await connect({ servers: nats.url });
  try {
    let reply: { status?: number } | undefined;
    await waitFor(
      async () => {
        const headers = natsHeaders();
        headers.set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`);
        const message = createRequestMessage({ method: 'get', uri: '/persons' });
        const answered = await nc.request('easer.get_/persons', JSON.stringify(message), { headers, timeout: 1000 });
        reply = answered.json();
        return true;
      },
      { what: `the generated service answering (${service.output().slice(-300)})` },
    );
    // A stub answers 501 until its handler is written.
    expect(reply?.status).toBe(501);
  } finally {
    await nc.close();
  }
  const span = await receiver.waitForSpan(
    (received) => received.traceId === traceId && received.kind === SERVER,
    "the generated service's span",
  );
  expect(span).toMatchObject({
    service: 'traced-person',
    name: 'process easer.get_/persons',
    parentSpanId: '00f067aa0ba902b7',
    attributes: { 'messaging.system': 'nats', 'messaging.destination.name': 'easer.get_/persons' },
  });
  expect(span.attributes['restbus.reply.status']).toBe(501);
});
