import { connect, type NatsConnection } from 'nats';
import { encodeMessage, storeSetting, type Executive, type ResponseMessage } from '@restbus/infra';
import { EASER_CASES, startNatsServer, startTestService, type TestNatsServer } from '@restbus/infra/testing';
import { registerPersons, type PersonServiceSettings } from '../register-persons';

/** A person-service on a NATS server of its own, and a connection to call it. */
interface Side {
  server: TestNatsServer;
  nc: NatsConnection;
  service: Executive<PersonServiceSettings>;
}

async function startSide(): Promise<Side> {
  const server = await startNatsServer();
  const nc = await connect({ servers: server.url });
  const service = await startTestService<PersonServiceSettings>({
    name: 'person-service',
    natsUrl: server.url,
    settings: [storeSetting],
    startups: [registerPersons],
    argv: ['--store', 'jetstream'],
  });
  return { server, nc, service };
}

async function ask(side: Side, message: { topic: string }): Promise<ResponseMessage> {
  const reply = await side.nc.request(message.topic, encodeMessage(message as never), { timeout: 5000 });
  return reply.json<ResponseMessage>();
}

const GENERATED_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** An answer without what differs by nature between two services: the ids that POSTs generated. */
function comparable(reply: ResponseMessage): unknown {
  return JSON.parse(JSON.stringify(reply).replace(GENERATED_ID, '<generated id>'));
}

let easer: Side;
let restbus: Side;

beforeAll(async () => {
  [easer, restbus] = await Promise.all([startSide(), startSide()]);
});
afterAll(async () => {
  for (const side of [easer, restbus]) {
    await side?.service.stop();
    await side?.nc.close();
    await side?.server.dispose();
  }
});

describe('person-service called by easer 7.0.4', () => {
  it('answers each message easer sends as it answers the same call from the restbus gateway', async () => {
    const answers: Array<{ call: string; status?: number }> = [];
    // In order, each on its own service: the calls build on each other (a PUT, then a GET of it...).
    for (const sample of EASER_CASES) {
      const restbusMessage = { ...(sample.easer as { topic: string }), request: sample.restbus };
      const fromEaser = await ask(easer, sample.easer as { topic: string });
      const fromRestbus = await ask(restbus, restbusMessage);
      expect({ call: sample.call, reply: comparable(fromEaser) }).toEqual({
        call: sample.call,
        reply: comparable(fromRestbus),
      });
      answers.push({ call: sample.call, status: fromEaser.status });
    }
    // Not one of them is refused as a malformed message.
    expect(answers.filter((answer) => answer.status === 400).map((answer) => answer.call)).toEqual([
      'GET /persons?limit[max]=1 (a nested value where a plain one is expected)',
      'POST /persons with --parseJson and the body {} (a body, since content-length says so)',
    ]);
  });
});
