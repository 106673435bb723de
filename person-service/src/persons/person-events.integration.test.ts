import { Writable } from 'node:stream';
import { connect, type JetStreamManager, type NatsConnection, type StoredMsg } from 'nats';
import pino from 'pino';
import { encodeMessage, storeSetting, type Executive, type ResponseMessage } from '@restbus/infra';
import {
  createRequestMessage,
  startNatsServer,
  startTestService,
  waitFor,
  type TestNatsServer,
} from '@restbus/infra/testing';
import { createPersonEvents, PERSON_EVENTS_STREAM } from './person-events';
import { registerPersons, type PersonServiceSettings } from '../register-persons';

let server: TestNatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let service: Executive<PersonServiceSettings> | undefined;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  jsm = await nc.jetstreamManager();
});
afterAll(async () => {
  await service?.stop();
  await nc?.close();
  await server?.dispose();
});

const JSON_TYPE = { 'content-type': 'application/json' };
const luke = { id: 'luke', familyName: 'Skywalker', givenName: 'Luke' };
const DAY_NS = 24 * 60 * 60 * 1e9;

async function call(
  method: 'get' | 'put' | 'post' | 'delete',
  uri: string,
  options: { id?: string; body?: unknown } = {},
): Promise<ResponseMessage> {
  const message = createRequestMessage({
    method,
    uri,
    headers: options.body === undefined ? {} : JSON_TYPE,
    body: options.body === undefined ? '' : JSON.stringify(options.body),
    parameters: { query: {}, uri: options.id === undefined ? {} : { personId: options.id } },
  });
  const reply = await nc.request(`easer.${method}_${uri}`, encodeMessage(message), { timeout: 5000 });
  return reply.json<ResponseMessage>();
}

const startService = (store = 'jetstream') =>
  startTestService<PersonServiceSettings>({
    name: 'person-service',
    natsUrl: server.url,
    settings: [storeSetting],
    startups: [registerPersons],
    argv: ['--store', store],
  });

const lastSequence = async (): Promise<number> => (await jsm.streams.info(PERSON_EVENTS_STREAM)).state.last_seq;

/** The events stored after sequence `after`, each with its JetStream sequence and subject. */
async function eventsAfter(after: number): Promise<Array<{ seq: number; subject: string; event: unknown }>> {
  const last = await lastSequence();
  const events = [];
  for (let seq = after + 1; seq <= last; seq++) {
    const message: StoredMsg = await jsm.streams.getMessage(PERSON_EVENTS_STREAM, { seq });
    events.push({ seq: message.seq, subject: message.subject, event: message.json() });
  }
  return events;
}

describe('person-service on the jetstream store', () => {
  beforeAll(async () => {
    service = await startService();
    await call('delete', '/persons');
  });
  afterAll(async () => {
    await service?.stop();
    service = undefined;
  });

  it('has made the PERSON_EVENTS stream on <topicPrefix>.persons.events, kept a day, 100,000 events, on file', async () => {
    const { config } = await jsm.streams.info(PERSON_EVENTS_STREAM);
    expect(config).toMatchObject({
      subjects: ['easer.persons.events'],
      max_age: DAY_NS,
      max_msgs: 100_000,
      storage: 'file',
      num_replicas: 1,
    });
  });

  it('publishes created, updated and deleted, one event per acknowledged write, in order, with sequences', async () => {
    const before = await lastSequence();
    expect(await call('put', '/persons/{personId}', { id: 'luke', body: luke })).toMatchObject({ status: 200 });
    const renamed = { ...luke, givenName: 'Luke S.' };
    expect(await call('put', '/persons/{personId}', { id: 'luke', body: renamed })).toMatchObject({ status: 200 });
    expect(await call('delete', '/persons/{personId}', { id: 'luke' })).toMatchObject({ status: 204 });
    expect(await eventsAfter(before)).toEqual([
      { seq: before + 1, subject: 'easer.persons.events', event: { type: 'created', id: 'luke', person: luke } },
      { seq: before + 2, subject: 'easer.persons.events', event: { type: 'updated', id: 'luke', person: renamed } },
      { seq: before + 3, subject: 'easer.persons.events', event: { type: 'deleted', id: 'luke' } },
    ]);
  });

  it('publishes created with the generated id when a person is created with POST', async () => {
    const before = await lastSequence();
    const reply = await call('post', '/persons', { body: { familyName: 'Organa', givenName: 'Leia' } });
    expect(reply.status).toBe(201);
    const leia = reply.body as { id: string };
    expect(await eventsAfter(before)).toEqual([
      { seq: before + 1, subject: 'easer.persons.events', event: { type: 'created', id: leia.id, person: leia } },
    ]);
  });

  it('publishes cleared when every person is deleted at once', async () => {
    await call('put', '/persons/{personId}', { id: 'luke', body: luke });
    const before = await lastSequence();
    expect(await call('delete', '/persons')).toEqual({ status: 204 });
    expect((await eventsAfter(before)).map(({ event }) => event)).toEqual([{ type: 'cleared' }]);
  });

  it('publishes nothing for a refused write, a delete of nobody, or a read', async () => {
    const before = await lastSequence();
    expect(await call('put', '/persons/{personId}', { id: 'leia', body: luke })).toMatchObject({ status: 400 });
    expect(await call('put', '/persons/{personId}', { id: '\ud800', body: { ...luke, id: '\ud800' } })).toMatchObject({
      status: 400,
    });
    expect(await call('delete', '/persons/{personId}', { id: 'nobody' })).toMatchObject({ status: 404 });
    expect(await call('get', '/persons')).toMatchObject({ status: 200 });
    expect(await eventsAfter(before)).toEqual([]);
  });

  it('publishes nothing when the store refuses the write itself', async () => {
    const bucket = (await jsm.streams.info('KV_persons')).config;
    // JetStream refuses every message bigger than this: the write fails in the store, after every check passed.
    await jsm.streams.update('KV_persons', { ...bucket, max_msg_size: 16 });
    try {
      const before = await lastSequence();
      const reply = await call('put', '/persons/{personId}', { id: 'han', body: { ...luke, id: 'han' } });
      expect(reply.status).toBeGreaterThanOrEqual(500);
      expect(await eventsAfter(before)).toEqual([]);
    } finally {
      await jsm.streams.update('KV_persons', { ...bucket, max_msg_size: -1 });
    }
  });

  it('answers GET /persons/events with 200 and no body: the stream starts with no snapshot', async () => {
    const reply = await call('get', '/persons/events');
    expect(reply.status).toBe(200);
    expect(reply.body ?? '').toBe('');
  });

  it('starts again with the stream already there, keeping its events, restoring its limits, publishing after them', async () => {
    const before = await lastSequence();
    await service?.stop();
    const { config } = await jsm.streams.info(PERSON_EVENTS_STREAM);
    await jsm.streams.update(PERSON_EVENTS_STREAM, { ...config, max_msgs: 10 });
    service = await startService();
    expect(await lastSequence()).toBe(before);
    expect((await jsm.streams.info(PERSON_EVENTS_STREAM)).config.max_msgs).toBe(100_000);
    await call('put', '/persons/{personId}', { id: 'luke', body: luke });
    expect(await eventsAfter(before)).toEqual([
      { seq: before + 1, subject: 'easer.persons.events', event: { type: 'created', id: 'luke', person: luke } },
    ]);
  });
});

describe('person-service whose events stream is deleted under it', () => {
  it('makes the stream again and publishes the next event into it', async () => {
    service = await startService();
    try {
      await jsm.streams.delete(PERSON_EVENTS_STREAM);
      expect(await call('put', '/persons/{personId}', { id: 'leia', body: { ...luke, id: 'leia' } })).toMatchObject({
        status: 200,
      });
      // The reply waits for the event only so long (ackWaitMs): making the stream again may take longer.
      await waitFor(async () => (await lastSequence()) >= 1, { what: 'the event stored', timeoutMs: 50_000 });
      expect(await eventsAfter(0)).toEqual([
        {
          seq: 1,
          subject: 'easer.persons.events',
          event: { type: expect.stringMatching(/^(created|updated)$/), id: 'leia', person: { ...luke, id: 'leia' } },
        },
      ]);
    } finally {
      await service.stop();
      service = undefined;
    }
  });
});

describe('person-service on the memory store', () => {
  it('answers GET /persons/events with 200 and no body, and publishes its changes on the subject', async () => {
    service = await startService('memory');
    try {
      const received: unknown[] = [];
      const sub = nc.subscribe('easer.persons.events', { callback: (_err, msg) => received.push(msg.json()) });
      await nc.flush();
      expect(await call('get', '/persons/events')).toMatchObject({ status: 200 });
      await call('put', '/persons/{personId}', { id: 'luke', body: luke });
      await waitFor(() => received.length > 0, { what: 'the event received', timeoutMs: 10_000 });
      await nc.flush();
      sub.unsubscribe();
      expect(received).toEqual([{ type: 'created', id: 'luke', person: luke }]);
    } finally {
      await service.stop();
      service = undefined;
    }
  });
});

describe('the person events publisher', () => {
  it('logs and counts an event it could not publish, and resolves: the write it follows stands', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    // A stream that takes no subject the events go to: JetStream has no one to acknowledge them.
    const events = createPersonEvents({
      nc,
      subject: 'nobody.listens.here',
      stream: PERSON_EVENTS_STREAM,
      logger: pino(sink),
      timeoutMs: 500,
    });
    await expect(events.publish({ type: 'deleted', id: 'luke' })).resolves.toBeUndefined();
    await expect(events.publish({ type: 'deleted', id: 'leia' })).resolves.toBeUndefined();
    expect(events.failures()).toBe(2);
    const failed = lines.filter((line) => line.msg === 'could not publish a person event; the write stands');
    expect(failed).toHaveLength(2);
    expect(failed[1]).toMatchObject({ event: { type: 'deleted', id: 'leia' }, failures: 2, err: expect.anything() });
  });

  it('lets the write answer after a short wait when the acknowledgement is late, and counts the event if it never comes', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    // Something takes the messages and never answers: the publish waits for an acknowledgement that does not come.
    const silent = nc.subscribe('silent.persons.events');
    await nc.flush();
    try {
      const events = createPersonEvents({
        nc,
        subject: 'silent.persons.events',
        stream: PERSON_EVENTS_STREAM,
        logger: pino(sink),
        timeoutMs: 1500,
        ackWaitMs: 200,
      });
      // The publish resolves after ackWaitMs, before the acknowledgement's timeout (timeoutMs) counts the event
      // failed: in that order, whatever the machine's speed.
      await events.publish({ type: 'deleted', id: 'luke' });
      expect(events.failures()).toBe(0);
      await waitFor(() => events.failures() === 1, { what: 'the event counted failed', timeoutMs: 15_000 });
      expect(lines.filter((line) => line.msg === 'could not publish a person event; the write stands')).toHaveLength(1);
    } finally {
      silent.unsubscribe();
    }
  });

  it('says the store is unavailable (503) when its stream cannot be read, so that no stream opens', async () => {
    const events = createPersonEvents({
      nc,
      subject: 'easer.persons.events',
      stream: 'NO_SUCH_STREAM',
      logger: pino({ level: 'silent' }),
    });
    await expect(events.ready()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});
