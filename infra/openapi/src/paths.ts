// A second entry, for the gateway's lint worker: a thread started at every gateway start (and reload) that needs only
// these two, where the main entry loads the reader and the runtime library under it (NATS, ajv, pino): about a fifth
// of the worker's start (issue 45).
export { formatPath } from './diagnostic';
export { valueAt } from './value-at';
