import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { MAX_STREAM_SUBJECT_BYTES } from '@restbus/openapi';
import { recordHostileCounts, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startGatewayProcess, type GatewayProcess } from '../streams/__tests__/gateway-process';
import { openSse } from '../streams/__tests__/sse-reader';

// 17 tokens of 256 bytes make a SUB line of 4,400 bytes: past nats-server's max_control_line (4096), which closes
// the connection that sends it. The template alone is short: the load cannot tell, the request must.
const NAMES = 'abcdefghijklmnopq'.split('');
const eventStream = { description: 'events', content: { 'text/event-stream': { itemSchema: { type: 'object' } } } };
const streamOperation = (operationId: string, subject: string, stream?: string) => ({
  get: {
    operationId,
    parameters: NAMES.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    'x-restbus-stream': { subject, ...(stream && { stream }) },
    responses: { '200': eventStream },
  },
});
const API = {
  openapi: '3.0.3',
  info: { title: 'wide', version: '1' },
  paths: {
    [`/wide/${NAMES.map((name) => `{${name}}`).join('/')}`]: streamOperation(
      'wideEvents',
      `wide.${NAMES.map((name) => `{${name}}`).join('.')}`,
    ),
    [`/feed/${NAMES.map((name) => `{${name}}`).join('/')}`]: streamOperation(
      'feedEvents',
      `feed.${NAMES.map((name) => `{${name}}`).join('.')}`,
      'FEED',
    ),
    '/plain': { get: { operationId: 'plain', responses: { '200': { description: 'ok' } } } },
  },
};

/** What the gateway logs when its NATS connection drops, comes back or is told of an error. */
const LINK_TROUBLE = /lost NATS|reconnected to NATS|NATS reported an error|NATS connection closed/;

let dir: string;
let nats: TestNatsServer;
let service: NatsConnection;
let gateway: GatewayProcess;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-subject-bound-'));
  await writeFile(join(dir, 'wide.json'), JSON.stringify(API));
  nats = await startNatsServer();
  service = await connect({ servers: nats.url });
  const jsm = await service.jetstreamManager();
  await jsm.streams.add({ name: 'FEED', subjects: ['feed.>'] });
  // Every operation's call is answered 200: the service lets every stream open.
  service.subscribe('easer.>', { callback: (_err, msg) => msg.respond('{"status":200,"body":{"ok":true}}') });
  await service.flush();
  gateway = await startGatewayProcess({ api: join(dir, 'wide.json'), natsUrls: nats.url });
});
afterAll(async () => {
  await gateway?.stop();
  await service?.close();
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** Each parameter `bytes` long: the expanded subject is about NAMES.length × bytes. */
const pathOf = (root: string, bytes: number): string => `/${root}/${NAMES.map((name) => name.repeat(bytes)).join('/')}`;

async function refusalOf(path: string): Promise<{ status: number; body: { code?: string; error?: string } }> {
  const sse = await openSse(`http://${gateway.base}${path}`);
  let text = '';
  for await (const chunk of sse.res) text += String(chunk);
  return { status: sse.res.statusCode ?? 0, body: JSON.parse(text) as { code?: string; error?: string } };
}

describe('a stream subject NATS cannot carry is refused before it is sent', () => {
  it('opens a stream whose parameters make a subject NATS carries', async () => {
    const sse = await openSse(`http://${gateway.base}${pathOf('wide', 8)}`);
    expect(sse.res.statusCode).toBe(200);
    sse.res.destroy();
  });

  it.each([
    ['a core NATS stream', 'wide'],
    ['a JetStream stream', 'feed'],
  ])(
    'answers 400 REQUEST_INVALID naming a parameter when the subject of %s would be too long, and keeps its NATS connection',
    async (_what, root) => {
      const tried = 3;
      for (let i = 0; i < tried; i++) {
        const { status, body } = await refusalOf(pathOf(root, 256));
        expect(status).toBe(400);
        expect(body.code).toBe('REQUEST_INVALID');
        expect(body.error).toMatch(/path parameter "[a-q]"/);
        expect(body.error).toContain(String(MAX_STREAM_SUBJECT_BYTES));
      }
      // A call after the refusals is answered over the same connection: it never dropped.
      const plain = await fetch(`http://${gateway.base}/plain`);
      expect(plain.status).toBe(200);
      const trouble = gateway
        .output()
        .split('\n')
        .filter((line) => LINK_TROUBLE.test(line));
      recordHostileCounts('gateway stream subjects', {
        tried: { requests: tried },
        found: { reconnects: trouble.length },
      });
      expect(trouble).toEqual([]);
    },
  );
});
