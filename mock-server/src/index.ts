// The mock server as a library: start it on a project. The project format itself is @restbus/project-format; the
// check that `restbus-mock --check` and `rest-tool validate` share is `@restbus/mock-server/check`.
export { startMockServer } from './server/start-mock-server';
export type { MockServer, MockServerOptions } from './server/start-mock-server';
