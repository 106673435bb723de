import { connect, type NatsConnection } from 'nats';
import { encodeMessage, measureReplyRoom, storeSetting, type Executive, type ResponseMessage } from '@restbus/infra';
import { createRequestMessage, startNatsServer, startTestService, type TestNatsServer } from '@restbus/infra/testing';
import { registerSystems, type SystemsServiceSettings } from './register-systems';

// A small max_payload, so that a list that does not fit in one reply is cheap to store.
const MAX_PAYLOAD = 64 * 1024;

let server: TestNatsServer;
let nc: NatsConnection;
let service: Executive<SystemsServiceSettings>;

beforeAll(async () => {
  server = await startNatsServer({ maxPayload: MAX_PAYLOAD });
  nc = await connect({ servers: server.url });
  service = await startTestService<SystemsServiceSettings>({
    name: 'systems-service',
    natsUrl: server.url,
    settings: [storeSetting],
    startups: [registerSystems],
    argv: ['--store', 'jetstream'],
  });
});
afterAll(async () => {
  await service?.stop();
  await nc?.close();
  await server?.dispose();
});
beforeEach(() => ask('delete', '/systems'));

async function ask(
  method: 'get' | 'post' | 'delete',
  uri: string,
  options: { query?: Record<string, string>; body?: unknown } = {},
): Promise<ResponseMessage> {
  const message = createRequestMessage({
    method,
    uri,
    headers: { 'content-type': 'application/json' },
    body: options.body === undefined ? '' : JSON.stringify(options.body),
    parameters: { query: options.query ?? {}, uri: {} },
  });
  return (
    await nc.request(`easer.${method}_${uri}`, encodeMessage(message), { timeout: 5000 })
  ).json<ResponseMessage>();
}

async function storeSystems(count: number, nameLength: number): Promise<Array<{ id: string; name: string }>> {
  const systems = Array.from({ length: count }, (_, i) => ({ id: `s${i}`, name: `S${i}`.padEnd(nameLength, 'x') }));
  // One at a time: the list's order is the order of the writes.
  for (const system of systems) expect(await ask('post', '/systems', { body: system })).toMatchObject({ status: 201 });
  return systems;
}

const linkOf = (reply: ResponseMessage): string | undefined => reply.headers?.link as string | undefined;

describe('getSystems, as GET /persons, pages only when asked or when the list does not fit in one reply', () => {
  it('answers all 150 systems in one array and no Link when no limit is asked', async () => {
    const systems = await storeSystems(150, 10);
    const reply = await ask('get', '/systems');
    expect(reply).toMatchObject({ status: 200, body: systems });
    expect(linkOf(reply)).toBeUndefined();
  });

  it('answers ?limit=10 with 10 systems and a Link that keeps the limit', async () => {
    const systems = await storeSystems(150, 10);
    const reply = await ask('get', '/systems', { query: { limit: '10' } });
    expect(reply).toMatchObject({ status: 200, body: systems.slice(0, 10) });
    expect(linkOf(reply)).toMatch(/^<\?limit=10&cursor=[\w-]+>; rel="next"$/);
  });

  it('answers a list larger than the reply room with a full page and a Link without a limit', async () => {
    await storeSystems(150, 1000);
    const reply = await ask('get', '/systems');
    expect(reply.status).toBe(200);
    const size = JSON.stringify(reply.body).length;
    expect(size).toBeLessThanOrEqual(measureReplyRoom(MAX_PAYLOAD));
    expect(size).toBeGreaterThan(measureReplyRoom(MAX_PAYLOAD) - 1100);
    expect(linkOf(reply)).toMatch(/^<\?cursor=[\w-]+>; rel="next"$/);
  });
});
