export { startNatsServer } from './nats-server';
export type { TestNatsServer } from './nats-server';
export { createRequestMessage } from './create-request-message';
export { startHelloResponder } from './bench/hello-responder';
export { median, summarize } from './bench/load-result';
export type { LoadResult } from './bench/load-result';
export { measureRawNats } from './bench/raw-nats';
export { runWrk } from './bench/run-wrk';
