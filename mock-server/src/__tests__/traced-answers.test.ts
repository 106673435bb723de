import { rm } from 'node:fs/promises';
import { OtlpReceiver } from '@restbus/infra/testing';
import { sampleFiles, writeProject } from './sample-project';
import { startMockProgram, type RunningMockProgram } from './start-mock-program';

// Issue 49: the mock server's answers are spans of their callers' traces, exported over OTLP/HTTP to a real receiver.
let receiver: OtlpReceiver;
let program: RunningMockProgram;
let dir: string;

beforeAll(async () => {
  receiver = await OtlpReceiver.start();
  dir = await writeProject(sampleFiles());
  program = await startMockProgram(['--project', dir, '--no-watch', '--log-format', 'json'], {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
});

afterAll(async () => {
  await program?.stop();
  await receiver?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('restbus-mock with tracing on', () => {
  it("answers each call in a server span of the caller's trace, named after the service's route", async () => {
    const traceId = 'abcdefabcdefabcdefabcdefabcdef01';
    const answer = await fetch(`${program.url}/rest/monitoring/isAlive`, {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(answer.status).toBe(200);
    const span = await receiver.waitForSpan((one) => one.traceId === traceId, 'the answer span');
    expect(span).toMatchObject({ service: 'restbus-mock', kind: 2, parentSpanId: '00f067aa0ba902b7' });
    expect(span.name).toMatch(/^GET \/\S*isAlive$/);
    expect(span.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
  });

  it('records the stable code of a call it refuses on its span', async () => {
    const traceId = 'abcdefabcdefabcdefabcdefabcdef02';
    const answer = await fetch(`${program.url}/rest/nothing-here`, {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(answer.status).toBe(404);
    const span = await receiver.waitForSpan((one) => one.traceId === traceId, 'the refused answer span');
    expect(span.attributes).toMatchObject({ 'error.type': 'NOT_FOUND', 'http.response.status_code': 404 });
    expect(receiver.refused).toEqual([]);
  });
});
