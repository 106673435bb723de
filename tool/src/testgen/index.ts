// rest-tool test --update: a test file per test case, for Node's built-in test runner.
export { generateTests } from './generate-tests';
export type { GenerateTestsOptions } from './generate-tests';
