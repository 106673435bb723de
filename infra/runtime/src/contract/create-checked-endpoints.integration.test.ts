import { connect, type NatsConnection } from 'nats';
import { createLogger } from '../logging/create-logger';
import { startNatsServer, type TestNatsServer } from '../testing/nats-server';
import type { Contract, ContractOperation } from './contract';
import { createCheckedEndpoints } from './create-checked-endpoints';
import { startContractService } from './start-contract-service';

const withBody = (name: string, schema: Record<string, unknown>): ContractOperation => ({
  name,
  method: 'post',
  path: `/${name}`,
  parameters: { path: [], query: [], header: [] },
  requestBody: { required: true, content: { 'application/json': { schema } } },
});

const contractOf = (...operations: ContractOperation[]): Contract => ({
  title: 't',
  version: '1',
  dialect: '3.0',
  operations,
});

const handlerFor = (contract: Contract) =>
  Object.fromEntries(contract.operations.map(({ name }) => [name, () => ({ status: 204 })]));

// A contract as an object literal with `__proto__` as a key: the object's prototype, not its property `__proto__`.
const dropped = withBody('addThing', { type: 'object', properties: { __proto__: { type: 'string', maxLength: 3 } } });

describe('a contract service that cannot check an input as its contract declares', () => {
  let server: TestNatsServer;
  let nc: NatsConnection;
  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
  });
  afterAll(async () => {
    await nc.close();
    await server.dispose();
  });

  it('does not start when a schema lost a property to its prototype, naming the operation', async () => {
    const contract = contractOf(withBody('fine', { type: 'object' }), dropped);
    const starting = startContractService({
      nc,
      logger: createLogger({ name: 'things', level: 'silent' }),
      name: 'things',
      version: '1.0.0',
      topicPrefix: 'easer',
      contract,
      handlers: handlerFor(contract),
    });
    await expect(starting).rejects.toMatchObject({
      code: 'OPENAPI_INVALID',
      message: expect.stringMatching(/the operation "addThing" cannot be checked: an object at \/requestBody/),
    });
    await expect(starting).rejects.not.toMatchObject({ message: expect.stringContaining('"fine"') });
  });

  it('does not start when a schema does not compile, naming the operation', () => {
    const contract = contractOf(withBody('addThing', { $ref: 'restbus-api.json#/components/schemas/Gone' }));
    expect(() => createCheckedEndpoints({ topicPrefix: 'easer', contract, handlers: handlerFor(contract) })).toThrow(
      /the operation "addThing" cannot be checked: its schemas do not compile/,
    );
  });

  it("takes none of Object's methods for a handler: an operation named constructor needs one of its own", () => {
    const contract = contractOf(withBody('constructor', { type: 'object' }), withBody('toString', { type: 'object' }));
    expect(() => createCheckedEndpoints({ topicPrefix: 'easer', contract, handlers: {} })).toThrow(
      'no handler for constructor, toString',
    );
  });

  it('does not start when a body declares a property named __proto__, which the schema checker never checks', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","maxLength":3}}}') as object;
    const contract = contractOf(withBody('addThing', schema as Record<string, unknown>));
    expect(() => createCheckedEndpoints({ topicPrefix: 'easer', contract, handlers: handlerFor(contract) })).toThrow(
      'the operation "addThing" cannot be checked: the schema at /requestBody/content/application/json/schema/properties declares a property "__proto__", which is never checked',
    );
  });

  it('does not start when a body requires a property every object inherits and the checker takes it as present', () => {
    const contract = contractOf(withBody('addThing', { type: 'object', required: ['toString'] }));
    expect(() => createCheckedEndpoints({ topicPrefix: 'easer', contract, handlers: handlerFor(contract) })).toThrow(
      'the operation "addThing" cannot be checked: the schema at /requestBody/content/application/json/schema/required requires a property every object inherits',
    );
  });
});
