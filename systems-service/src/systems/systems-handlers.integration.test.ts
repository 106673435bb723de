import { connect, type NatsConnection } from 'nats';
import { encodeMessage, storeSetting, type Executive, type ResponseMessage } from '@restbus/infra';
import { createRequestMessage, startNatsServer, startTestService, type TestNatsServer } from '@restbus/infra/testing';
import { registerSystems, type SystemsServiceSettings } from './register-systems';

let server: TestNatsServer;
let nc: NatsConnection;
let service: Executive<SystemsServiceSettings>;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});
afterAll(async () => {
  await nc?.close();
  await server?.dispose();
});

const JSON_TYPE = { 'content-type': 'application/json' };

async function call(
  method: 'get' | 'post' | 'delete',
  uri: string,
  options: { body?: unknown; headers?: Record<string, string>; id?: string } = {},
): Promise<ResponseMessage> {
  const body =
    options.body === undefined ? '' : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const message = createRequestMessage({
    method,
    uri,
    headers: options.headers ?? JSON_TYPE,
    body,
    parameters: { query: {}, uri: options.id ? { systemId: options.id } : {} },
  });
  return (
    await nc.request(`easer.${method}_${uri}`, encodeMessage(message), { timeout: 2000 })
  ).json<ResponseMessage>();
}

describe.each(['memory', 'jetstream'])('the systems handlers on the %s store', (store) => {
  beforeEach(async () => {
    service = await startTestService<SystemsServiceSettings>({
      name: 'systems-service',
      natsUrl: server.url,
      settings: [storeSetting],
      startups: [registerSystems],
      argv: ['--store', store],
    });
    await call('delete', '/systems');
  });
  afterEach(() => service.stop());

  it('getSystems answers 200 with an empty list at first', async () => {
    expect(await call('get', '/systems')).toMatchObject({ status: 200, body: [] });
  });

  it('postSystems creates a system with a generated UUID, answers 201 with Location, and getSystems lists it', async () => {
    const reply = await call('post', '/systems', { body: { name: 'hedgehog-garden', kind: 'garden' } });
    const created = reply.body as { id: string };
    expect(reply.status).toBe(201);
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'hedgehog-garden', kind: 'garden' });
    expect(reply.headers).toMatchObject({ location: `/systems/${created.id}` });
    expect((await call('get', '/systems')).body).toEqual([created]);
    expect(await call('get', '/systems/{systemId}', { id: created.id })).toMatchObject({ status: 200, body: created });
  });

  it('postSystems keeps a given id, and answers 409 with the Location of the existing system for a taken one', async () => {
    const system = { id: '2adce0f1-397f-4923-bdf2-16334a76c29f', name: 'backyard' };
    expect(await call('post', '/systems', { body: system })).toMatchObject({ status: 201, body: system });
    const duplicate = await call('post', '/systems', { body: { ...system, name: 'other' } });
    expect(duplicate).toMatchObject({
      status: 409,
      headers: { location: `/systems/${system.id}` },
      body: { error: expect.stringContaining(system.id), code: 'CONFLICT' },
    });
    expect((await call('get', '/systems')).body).toEqual([system]);
  });

  it.each([
    ['no name', { kind: 'x' }, JSON_TYPE, /must have required property 'name'/],
    ['a name that is not a string', { name: 7 }, JSON_TYPE, /\/name: must be string/],
    ['an array', [{ name: 'x' }], JSON_TYPE, /must be object/],
    ['invalid JSON', '{nope', JSON_TYPE, /not valid JSON/],
    ['an empty body', '', JSON_TYPE, /body is empty/],
    ['a non-JSON content type', { name: 'x' }, { 'content-type': 'text/plain' }, /application\/json/],
  ])('postSystems answers 400 to a body with %s', async (_what, body, headers, message) => {
    const reply = await call('post', '/systems', { body, headers });
    expect(reply).toMatchObject({ status: 400, body: { code: 'REQUEST_INVALID' } });
    expect((reply.body as { error: string }).error).toMatch(message);
  });

  it('postSystems answers 400 to an id with a lone surrogate before storing anything, and again on a retry', async () => {
    const body = '{"name":"x","id":"\\ud800"}';
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await call('post', '/systems', { body })).toMatchObject({
        status: 400,
        body: { error: expect.stringMatching(/^id: .*lone surrogate/), code: 'REQUEST_INVALID' },
      });
    }
    expect(await call('get', '/systems')).toMatchObject({ status: 200, body: [] });
  });

  it('postSystems answers 400 to a 3100-byte id, and getSystem to a 3100-byte systemId, and keeps serving', async () => {
    const id = 'a'.repeat(3100);
    expect(await call('post', '/systems', { body: { name: 'x', id } })).toMatchObject({ status: 400 });
    expect(await call('get', '/systems/{systemId}', { id })).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^systemId: .*at most 512 bytes/), code: 'REQUEST_INVALID' },
    });
    expect(await call('get', '/systems')).toMatchObject({ status: 200, body: [] });
  });

  it('deleteSystems deletes all and answers 204 without a body', async () => {
    await call('post', '/systems', { body: { name: 'a' } });
    const reply = await call('delete', '/systems');
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expect((await call('get', '/systems')).body).toEqual([]);
  });
});
