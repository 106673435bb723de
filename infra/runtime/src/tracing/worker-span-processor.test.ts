import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { TraceFlags } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import { WorkerSpanProcessor } from './worker-span-processor';

// Stand-ins for the export worker, as files a real worker thread runs: one that takes nothing (an exporter stuck on
// a collector that never answers, a worker starved of CPU), one that fails as it starts, one that never stops.
const WORKERS = {
  taking: `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.shutdown) parentPort.postMessage({ stopped: true });
  if (m.flush) parentPort.postMessage({ flushed: m.flush });
});`,
  broken: `throw new Error('the exporter could not be loaded');`,
  deaf: `require('node:worker_threads').parentPort.on('message', () => undefined);`,
  slow: `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.flush) setTimeout(() => parentPort.postMessage({ flushed: m.flush }), m.flush === 1 ? 0 : 300);
});`,
};

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-export-worker-'));
  for (const [name, source] of Object.entries(WORKERS)) await writeFile(join(dir, `${name}.js`), source);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function oneSpan(): ReadableSpan {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer('restbus');
  tracer.startSpan('GET /persons').end();
  return memory.getFinishedSpans()[0];
}

function start(
  worker: keyof typeof WORKERS,
  stopTimeoutMs?: number,
): { processor: WorkerSpanProcessor; said: string[] } {
  const said: string[] = [];
  const processor = new WorkerSpanProcessor({
    settings: { exporter: 'otlp', protocol: 'http/protobuf' },
    resource: { 'service.name': 'tested' },
    warn: (message) => said.push(message),
    entry: join(dir, `${worker}.js`),
    stopTimeoutMs,
  });
  return { processor, said };
}

describe('WorkerSpanProcessor', () => {
  it('holds at most 2048 spans for a worker that takes none, drops the rest, and says so once and at the stop', async () => {
    const { processor, said } = start('taking');
    const span = oneSpan();
    for (let i = 0; i < 2048 + 100; i++) processor.onEnd(span);
    expect(said).toEqual(['spans dropped: the export worker is 2048 spans behind']);
    await processor.shutdown();
    expect(said).toEqual([
      'spans dropped: the export worker is 2048 spans behind',
      '100 spans were dropped while the export worker was behind',
    ]);
  });

  it('passes spans that were not sampled over: they neither travel nor count against the bound', async () => {
    const { processor, said } = start('taking');
    const sampled = oneSpan();
    const context = { ...sampled.spanContext(), traceFlags: TraceFlags.NONE };
    const unsampled: ReadableSpan = { ...sampled, spanContext: () => context };
    for (let i = 0; i < 5000; i++) processor.onEnd(unsampled);
    await processor.shutdown();
    expect(said).toEqual([]);
  });

  it('lets a program go on without its spans when the worker fails, and its flush and stop still return', async () => {
    const { processor, said } = start('broken');
    await processor.forceFlush();
    expect(said).toEqual(['the span export worker failed: the exporter could not be loaded']);
    processor.onEnd(oneSpan());
    await processor.forceFlush();
    await processor.shutdown();
    expect(said).toHaveLength(1);
  });

  it('stops within its stop timeout when the worker does not answer, saying the spans it held are lost', async () => {
    const { processor, said } = start('deaf', 200);
    processor.onEnd(oneSpan());
    await processor.shutdown();
    expect(said).toEqual(['the span export worker did not stop within 200 ms: its spans are lost']);
  });

  it('keeps the program alive until the last of two flushes is answered, not only the first', async () => {
    // A program with nothing else to do, as at its end: the built processor in a Node process of its own.
    const processor = JSON.stringify(resolve(__dirname, '../../dist/tracing/worker-span-processor.js'));
    const program = `
const { WorkerSpanProcessor } = require(${processor});
const processor = new WorkerSpanProcessor({
  settings: { exporter: 'otlp', protocol: 'http/protobuf' },
  resource: {},
  warn: (message) => console.log(message),
  entry: ${JSON.stringify(join(dir, 'slow.js'))},
});
processor.forceFlush().then(() => console.log('first flushed'));
processor.forceFlush().then(() => console.log('second flushed'));
`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', program], { timeout: 30_000 });
    expect(stdout).toBe('first flushed\nsecond flushed\n');
  });
});
