// The mock server as a library: the project loader and schemas are shared with the project tool (rest-tool).
export { assertProjectFolder } from './project/assert-project-folder';
export { loadProject } from './project/load-project';
export type { Environment, Project, ServiceDescriptor } from './project/load-project';
export { readYamlFile } from './project/read-yaml-file';
export { routeKey } from './project/route-key';
export type { YamlFile } from './project/read-yaml-file';
export { projectConfigSchema, serverConfigSchema, serviceSchema } from './project/schemas';
export { startMockServer } from './server/start-mock-server';
export type { MockServer, MockServerOptions } from './server/start-mock-server';
export { checkProject } from './server/check-project';
export { listReferencedFiles } from './project/check-referenced-files';
export { createSchemaCheck } from './project/create-schema-check';
export type { SchemaProblem } from './project/create-schema-check';
