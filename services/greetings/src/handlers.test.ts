// A test per operation against a real nats-server: change each as you write its handler.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createExecutive, type Executive } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { connect, type NatsConnection } from 'nats';
import { createClient, register } from './generated/contract';
import { createHandlers } from './handlers';

describe("greetings", () => {
  let server: TestNatsServer;
  let executive: Executive<object>;
  let nc: NatsConnection;
  let client: ReturnType<typeof createClient>;

  before(async () => {
    server = await startNatsServer();
    executive = createExecutive({
      name: "greetings",
      version: '0.1.0',
      description: 'under test',
      startups: [register(createHandlers, { name: "greetings", version: '0.1.0' })],
      argv: ['--natsUri', server.url, '--logLevel', 'warn'],
      env: {},
    });
    await executive.start();
    nc = await connect({ servers: server.url });
    client = createClient(nc, 'easer');
  });

  after(async () => {
    await nc?.close();
    await executive?.stop();
    await server?.dispose();
  });

  it("greet answers (501 until it is written)", async () => {
    const reply = await client["greet"]({"params":{"name":"string"}} as never);
    assert.equal(reply.status, 501);
  });
});
