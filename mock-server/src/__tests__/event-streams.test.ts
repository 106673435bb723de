import { request } from 'node:http';
import { rm } from 'node:fs/promises';
import { readSseEvents } from '@restbus/infra/testing';
import type { MockServer } from '../server/start-mock-server';
import { serveProject, shopConfig, writeProject, type Files } from './sample-project';

/** A project whose /orders/events answers an event stream from a mock file of three events. */
const files = (extra: Files = {}): Files => ({
  'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n',
  'config.yml': shopConfig(['/orders/events']),
  'services/orders/events/service.yml': `name: Order events
description: What happens to orders, as it happens
style: OPERATION
uriTemplate: /orders/events
methods:
  GET:
    summary: Watch the orders
    responses:
      - name: OK
        statusCode: 200
        reason: The events
        headers:
          - { field: Content-Type, content: text/event-stream }
          - { field: X-Shop, content: demo }
        mockBody: events.json
      - name: EMPTY
        statusCode: 200
        reason: A stream without events yet
        headers:
          - { field: Content-Type, content: text/event-stream }
      - name: BROKEN
        statusCode: 200
        reason: Its mock file is missing
        headers:
          - { field: Content-Type, content: text/event-stream }
        mockBody: missing.json
`,
  'services/orders/events/events.json': JSON.stringify([
    { type: 'created', id: 'o-1' },
    { type: 'paid', id: 'o-1', lines: 'two\nlines' },
    { type: 'shipped', id: 'o-1' },
  ]),
  ...extra,
});

let project: string;
let server: MockServer;

beforeAll(async () => {
  project = await writeProject(files());
  server = await serveProject(project, { watch: false, eventInterval: 150 });
});
afterAll(async () => {
  await server?.close();
  await rm(project, { recursive: true, force: true });
});

const url = (): string => `${server.url}/rest/orders/events`;

/** The status, headers and the first `bytes` of the body of a GET, then closes it. */
function openRaw(
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url(), { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.includes('data:') || body.includes('"error"')) {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('event streams of the mock server', () => {
  it('sends the items of the mock file as events with ids 1, 2, 3, one at a time, past the request timeout', async () => {
    // A stream outlives the request timeout, which only bounds the time to receive the request: here 2 s, with the
    // third event two intervals of 1.1 s after the first. The server runs in this process, on the same timers as this
    // test: a timer of the request timeout's length, set before the request, always fires before the server's second
    // interval ends, so it has fired by the time the third event is read.
    const paced = await serveProject(project, {
      watch: false,
      eventInterval: 1_100,
      limits: { requestTimeoutMs: 2_000 },
    });
    let timeoutPassed = false;
    const timer = setTimeout(() => (timeoutPassed = true), 2_000);
    try {
      const events = await readSseEvents(`${paced.url}/rest/orders/events`, { count: 3 });
      expect(events).toEqual([
        { id: '1', event: 'message', data: { type: 'created', id: 'o-1' } },
        { id: '2', event: 'message', data: { type: 'paid', id: 'o-1', lines: 'two\nlines' } },
        { id: '3', event: 'message', data: { type: 'shipped', id: 'o-1' } },
      ]);
      expect(timeoutPassed).toBe(true);
    } finally {
      clearTimeout(timer);
      await paced.close();
    }
  });

  it('answers with the declared headers beside the stream headers', async () => {
    const answer = await openRaw();
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-cache, no-transform');
    expect(answer.headers['x-shop']).toBe('demo');
    expect(answer.headers['x-application-api-version']).toBe('v1.0.0');
    expect(answer.body).toMatch(/^retry: \d+\n\nid: 1\nevent: message\ndata: /);
  });

  it('resumes after the id a reconnecting client last saw, and refuses an id that is not one', async () => {
    const resumed = await readSseEvents(url(), { count: 1, headers: { 'Last-Event-ID': '2' } });
    expect(resumed).toEqual([{ id: '3', event: 'message', data: { type: 'shipped', id: 'o-1' } }]);
    const since = await readSseEvents(`${url()}?since=1`, { count: 2 });
    expect(since.map((event) => event.id)).toEqual(['2', '3']);

    const refused = await openRaw({ 'Last-Event-ID': 'yesterday' });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'REQUEST_INVALID' });
  });

  it('keeps a stream without events open, and one whose mock file is missing says why in X-Mock-Warning', async () => {
    const empty = await openRaw({ 'X-Mock-Response': 'EMPTY' }, 'HEAD');
    expect(empty.status).toBe(200);
    expect(empty.headers['content-type']).toBe('text/event-stream; charset=utf-8');

    const broken = await openRaw({ 'X-Mock-Response': 'BROKEN' }, 'HEAD');
    expect(broken.status).toBe(200);
    expect(String(broken.headers['x-mock-warning'])).toMatch(
      /missing\.json does not exist; the stream sends no events/,
    );
  });

  it('answers 500 MOCK_UNAVAILABLE for a stream whose mock file is missing under --strict', async () => {
    const strict = await serveProject(project, { watch: false, strict: true });
    try {
      const answer = await fetch(`${strict.url}/rest/orders/events`, { headers: { 'X-Mock-Response': 'BROKEN' } });
      expect(answer.status).toBe(500);
      expect(await answer.json()).toMatchObject({ code: 'MOCK_UNAVAILABLE' });
    } finally {
      await strict.close();
    }
  });

  it('closes its open streams when the server closes', async () => {
    const other = await serveProject(project, { watch: false, eventInterval: 60_000 });
    const ended = new Promise<string>((resolve, reject) => {
      const req = request(`${other.url}/rest/orders/events`, (res) => {
        res.resume();
        res.on('close', () => resolve('closed'));
        void other.close();
      });
      req.on('error', reject);
      req.end();
    });
    await expect(ended).resolves.toBe('closed');
  });
});
