import { connect, type NatsConnection } from 'nats';
import { encodeMessage, storeSetting, type Executive, type ResponseMessage } from '@restbus/infra';
import { createRequestMessage, startNatsServer, startTestService, type TestNatsServer } from '@restbus/infra/testing';
import { registerPersons, type PersonServiceSettings } from '../register-persons';

let server: TestNatsServer;
let nc: NatsConnection;
let service: Executive<PersonServiceSettings>;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});
afterAll(async () => {
  await nc?.close();
  await server?.dispose();
});

const JSON_TYPE = { 'content-type': 'application/json' };
const luke = { id: 'luke', familyName: 'Skywalker', givenName: 'Luke' };

async function call(
  method: 'get' | 'put' | 'post' | 'delete',
  uri: string,
  options: { id?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<ResponseMessage> {
  const message = createRequestMessage({
    method,
    uri,
    headers: options.headers ?? {},
    body: options.body ?? '',
    parameters: { query: {}, uri: options.id === undefined ? {} : { personId: options.id } },
  });
  const reply = await nc.request(`easer.${method}_${uri}`, encodeMessage(message), { timeout: 2000 });
  return reply.json<ResponseMessage>();
}

const put = (id: string, person: unknown) =>
  call('put', '/persons/{personId}', { id, body: JSON.stringify(person), headers: JSON_TYPE });

describe.each(['memory', 'jetstream'])('the person API on the %s store', (store) => {
  beforeEach(async () => {
    service = await startTestService<PersonServiceSettings>({
      name: 'person-service',
      natsUrl: server.url,
      settings: [storeSetting],
      startups: [registerPersons],
      argv: ['--store', store],
    });
    await call('delete', '/persons');
  });
  afterEach(() => service.stop());

  it('lists no persons as an empty array', async () => {
    expect(await call('get', '/persons')).toMatchObject({ status: 200, body: [] });
  });

  it('stores a person with PUT, returns it, and lists it', async () => {
    expect(await put('luke', luke)).toMatchObject({ status: 200, body: luke });
    expect(await call('get', '/persons')).toMatchObject({ status: 200, body: [luke] });
    expect(await call('get', '/persons/{personId}', { id: 'luke' })).toMatchObject({ status: 200, body: luke });
  });

  it('replaces a person in place and keeps insertion order', async () => {
    await put('a', { id: 'a', familyName: 'A', givenName: 'a' });
    await put('b', { id: 'b', familyName: 'B', givenName: 'b' });
    await put('a', { id: 'a', familyName: 'A2', givenName: 'a' });
    expect((await call('get', '/persons')).body).toEqual([
      { id: 'a', familyName: 'A2', givenName: 'a' },
      { id: 'b', familyName: 'B', givenName: 'b' },
    ]);
  });

  it.each([
    ['an id that differs from the path', () => put('leia', luke), /differs from the path parameter/],
    [
      'a missing field',
      () => put('luke', { id: 'luke', familyName: 'Skywalker' }),
      /must have required property 'givenName'/,
    ],
    ['a field that is not a string', () => put('luke', { ...luke, givenName: 7 }), /\/givenName: must be string/],
    ['an empty body', () => call('put', '/persons/{personId}', { id: 'luke', headers: JSON_TYPE }), /body is empty/],
    [
      'invalid JSON',
      () => call('put', '/persons/{personId}', { id: 'luke', body: '{nope', headers: JSON_TYPE }),
      /not valid JSON/,
    ],
    [
      'a non-JSON content type',
      () =>
        call('put', '/persons/{personId}', {
          id: 'luke',
          body: JSON.stringify(luke),
          headers: { 'content-type': 'text/plain' },
        }),
      /application\/json, not text\/plain/,
    ],
  ])('refuses a PUT with %s as 400 with a JSON error, and keeps serving', async (_what, send, message) => {
    const reply = await send();
    expect(reply).toMatchObject({ status: 400, body: { code: 'REQUEST_INVALID' } });
    expect((reply.body as { error: string }).error).toMatch(message);
    expect(await call('get', '/persons')).toMatchObject({ status: 200, body: [] });
  });

  it('answers a body that is not JSON with the error and code alone, as before the service stood on a contract', async () => {
    const reply = await call('put', '/persons/{personId}', { id: 'luke', body: '{not json', headers: JSON_TYPE });
    expect(reply).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'the body is not valid JSON', code: 'REQUEST_INVALID' } }),
    );
  });

  it.each([
    ['non-JSON', 'hello'],
    ['JSON of the wrong shape', '{"topic":1}'],
    ['1 MB of junk', 'x'.repeat(1_000_000)],
  ])('answers %s on a subject with 400 MESSAGE_INVALID and keeps answering', async (_what, junk) => {
    const reply = await nc.request('easer.get_/persons', new TextEncoder().encode(junk), { timeout: 2000 });
    expect(reply.json()).toMatchObject({ status: 400, body: { code: 'MESSAGE_INVALID' } });
    expect(await call('get', '/persons')).toMatchObject({ status: 200, body: [] });
  });

  it.each([
    ['a lone surrogate', '\ud800', /lone surrogate/],
    ['3100 bytes', 'a'.repeat(3100), /at most 512 bytes/],
  ])('answers 400 to an id of %s in GET, PUT and DELETE, and keeps serving', async (_what, id, message) => {
    for (const reply of [
      await call('get', '/persons/{personId}', { id }),
      await put(id, { ...luke, id }),
      await call('delete', '/persons/{personId}', { id }),
    ]) {
      expect(reply).toMatchObject({
        status: 400,
        body: { error: expect.stringMatching(message), code: 'REQUEST_INVALID' },
      });
      expect((reply.body as { error: string }).error).toMatch(/^personId: /);
    }
    expect(await call('get', '/persons')).toMatchObject({ status: 200, body: [] });
  });

  it('keeps serving every request while long ids are sent alongside them', async () => {
    await put('luke', luke);
    const calls = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? call('get', '/persons/{personId}', { id: 'a'.repeat(3100) })
        : call('get', '/persons/{personId}', { id: 'luke' }),
    );
    const replies = await Promise.all(calls);
    expect(replies.map((reply) => reply.status)).toEqual(calls.map((_, i) => (i % 2 === 0 ? 400 : 200)));
  });

  it('answers 404 NOT_FOUND with a JSON error for a person that does not exist', async () => {
    expect(await call('get', '/persons/{personId}', { id: 'nobody' })).toMatchObject({
      status: 404,
      body: { error: expect.stringContaining('nobody'), code: 'NOT_FOUND' },
    });
  });

  it('creates a person with a generated id on POST and says where it is', async () => {
    const reply = await call('post', '/persons', {
      body: JSON.stringify({ familyName: 'Organa', givenName: 'Leia' }),
      headers: JSON_TYPE,
    });
    const created = reply.body as { id: string };
    expect(reply.status).toBe(201);
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), familyName: 'Organa', givenName: 'Leia' });
    expect(reply.headers).toMatchObject({ location: `/persons/${created.id}` });
  });

  it('deletes one person, then all of them', async () => {
    await put('a', { id: 'a', familyName: 'A', givenName: 'a' });
    await put('b', { id: 'b', familyName: 'B', givenName: 'b' });
    expect(await call('delete', '/persons/{personId}', { id: 'a' })).toEqual({ status: 204 });
    expect(await call('delete', '/persons/{personId}', { id: 'a' })).toMatchObject({ status: 404 });
    expect(await call('delete', '/persons')).toEqual({ status: 204 });
    expect((await call('get', '/persons')).body).toEqual([]);
  });
});
