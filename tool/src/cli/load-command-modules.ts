/* eslint-disable @typescript-eslint/no-require-imports -- each module is loaded by the command that runs it */

/**
 * What the commands do, each module loaded when its command runs: `rest-tool --version`, `--help` and each command
 * load only what they use. Loaded all at once, the commands' modules took some 0.35 s of every start before any
 * command ran (the OpenAPI converters, the code generator, the validators).
 */
export const commandModules = {
  addServices: () => require('../add/add-services') as typeof import('../add/add-services'),
  readBulkFile: () => require('../add/read-bulk-file') as typeof import('../add/read-bulk-file'),
  createProject: () => require('../create/create-project') as typeof import('../create/create-project'),
  exportOpenApi: () => require('../export-oas/export-openapi') as typeof import('../export-oas/export-openapi'),
  generateService: () =>
    require('../generate-service/generate-service') as typeof import('../generate-service/generate-service'),
  importOpenApi: () => require('../import-oas/import-openapi') as typeof import('../import-oas/import-openapi'),
  nameServices: () => require('../import-oas/name-services') as typeof import('../import-oas/name-services'),
  validateProject: () => require('../validate/validate-project') as typeof import('../validate/validate-project'),
  docs: () => require('../docs') as typeof import('../docs'),
  testgen: () => require('../testgen') as typeof import('../testgen'),
};
