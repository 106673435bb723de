export { startNatsServer } from './nats-server';
export type { TestNatsServer } from './nats-server';
export { createRequestMessage } from './create-request-message';
