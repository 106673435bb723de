// What other packages' tests use of the gateway (the tool's tests load and serve the files it writes); not published.
export { startGateway } from '../app/start-gateway';
export type { RunningGateway } from '../app/start-gateway';
export { loadApi } from '../openapi/load-api';
