import { connect, type NatsConnection } from 'nats';
import { kvReplicasSetting, storeSetting, type Executive } from '@restbus/infra';
import { startNatsCluster, startTestService, type TestNatsCluster } from '@restbus/infra/testing';
import { PERSON_EVENTS_STREAM } from './person-events';
import { registerPersons, type PersonServiceSettings } from '../register-persons';

let cluster: TestNatsCluster;
let nc: NatsConnection;
const services: Array<Executive<PersonServiceSettings>> = [];

beforeAll(async () => {
  cluster = await startNatsCluster();
  nc = await connect({ servers: cluster.urls });
});
afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
  await nc?.close();
  await cluster?.dispose();
});

it('makes the events stream with as many replicas as the bucket, three on a 3-node cluster, when two replicas of the service start at once', async () => {
  const start = () =>
    startTestService<PersonServiceSettings>({
      name: 'person-service',
      natsUrl: cluster.urls,
      settings: [storeSetting, kvReplicasSetting],
      startups: [registerPersons],
      argv: ['--store', 'jetstream'],
    });
  services.push(...(await Promise.all([start(), start()])));
  const jsm = await nc.jetstreamManager();
  expect((await jsm.streams.info('KV_persons')).config.num_replicas).toBe(3);
  const { config } = await jsm.streams.info(PERSON_EVENTS_STREAM);
  expect(config).toMatchObject({ num_replicas: 3, subjects: ['easer.persons.events'], storage: 'file' });
});
