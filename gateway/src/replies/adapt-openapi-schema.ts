// Moved to @restbus/infra: one reading of each dialect's schemas for --validate, the services, the mock server and
// the reply checks.
export { adaptOpenApiSchema } from '@restbus/infra';
