// The rest-tool project format, shared by the mock server (which serves a project) and the tool (which writes and
// reads one): its schemas and types, the loader that names file and line, route keys, referenced files.
export { appendServices } from './append-services';
export { assertProjectFolder } from './assert-project-folder';
export { listReferencedFiles, checkReferencedFiles } from './check-referenced-files';
export type { Reference, ReferenceFindings } from './check-referenced-files';
export { compileUriTemplate, findUriTemplateProblem } from './compile-uri-template';
export type { UriMatcher } from './compile-uri-template';
export { createSchemaCheck } from './create-schema-check';
export type { SchemaProblem } from './create-schema-check';
export { isEventStreamMethod, isEventStreamResponse, isEventStreamType } from './is-event-stream';
export { isInside } from './is-inside';
export { findMethod, listMethods } from './list-methods';
export { loadProject, MAX_PROJECT_EXPANDED_BYTES } from './load-project';
export { looksPlural, singular } from './name-from-path';
export type { Environment, Project, ServiceDescriptor } from './load-project';
export { LEGACY_PROXY_KEYS } from './read-legacy-proxy';
export { readYamlFile } from './read-yaml-file';
export type { YamlFile } from './read-yaml-file';
export { routeKey } from './route-key';
export { projectConfigSchema, serverConfigSchema, serviceSchema } from './schemas';
export type {
  EnvironmentSettings,
  FieldList,
  MethodDescriptor,
  MethodName,
  ProjectConfig,
  RequestParameter,
  ResponseDescriptor,
  ServerConfig,
  ServiceDocument,
  TestCase,
} from './types';
export {
  createFileAtomic,
  parseTempName,
  replaceFileIfUnchanged,
  siblingTempPath,
  writeFileAtomic,
} from './write-file-atomic';
export type { WriteOptions } from './write-file-atomic';
