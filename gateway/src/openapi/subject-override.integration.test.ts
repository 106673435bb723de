import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { createNatsLink, type NatsLink, type RequestMessage } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startTestGateway, type TestGateway } from '../__tests__/start-test-gateway';
import { loadApi } from './load-api';

const API = `
openapi: 3.0.3
info: { title: people, version: '1' }
paths:
  /people:
    get:
      operationId: listPeople
      x-restbus-subject: people.list
      responses:
        '200': { description: the people, content: { application/json: { schema: { type: array } } } }
  /others:
    get:
      responses:
        '200': { description: the others }
`;

let dir: string;
let server: TestNatsServer;
let nc: NatsConnection;
let link: NatsLink;
let gateway: TestGateway;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-subject-override-'));
  await writeFile(join(dir, 'api.yml'), API);
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  link = createNatsLink({ servers: server.url, name: 'gateway-test', logger: pino({ level: 'silent' }) });
  await link.ready();
  gateway = await startTestGateway(await loadApi(join(dir, 'api.yml'), { topicPrefix: 'easer' }), { link });
});
afterAll(async () => {
  await gateway?.close();
  await link?.drain();
  await nc?.close();
  await server?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('the subject a call is forwarded to', () => {
  it("is the operation's x-restbus-subject when it has one, else <topicPrefix>.<method>_<path>", async () => {
    const received: string[] = [];
    for (const subject of ['people.list', 'easer.get_/others', 'easer.get_/people']) {
      nc.subscribe(subject, {
        callback: (_err, msg) => {
          received.push(`${subject} ${msg.json<RequestMessage>().uri}`);
          msg.respond(JSON.stringify({ status: 200, body: [subject] }));
        },
      });
    }
    await nc.flush();
    const people = await fetch(`${gateway.url}/people`);
    expect(people.status).toBe(200);
    expect(await people.json()).toEqual(['people.list']);
    expect(await (await fetch(`${gateway.url}/others`)).json()).toEqual(['easer.get_/others']);
    expect(received).toEqual(['people.list /people', 'easer.get_/others /others']);
  });
});
