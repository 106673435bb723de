export { startNatsServer } from './nats-server';
export type { TestNatsServer } from './nats-server';
