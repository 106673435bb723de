// One jest project per package; ts-jest runs the TypeScript sources directly. The global setup still builds
// (tsc -b, incremental) because some suites run the built binaries and the packed packages, as users do.
const { join } = require('node:path');

/** Each jest project: its display name and its folder. The shared libraries live under infra/. */
const packages = [
  ['infra', 'infra/runtime'],
  ['project-format', 'infra/project-format'],
  ['openapi', 'infra/openapi'],
  ['gateway', 'gateway'],
  ['person-service', 'person-service'],
  ['systems-service', 'systems-service'],
  ['mock-server', 'mock-server'],
  ['tool', 'tool'],
  ['dev-issuer', 'dev-issuer'],
  ['e2e', 'e2e'],
];
const fromRoot = (path) => join(__dirname, path);

const projectFor = ([name, dir]) => ({
  displayName: name,
  rootDir: fromRoot(dir),
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: fromRoot('tsconfig.test.json') }],
    '/node_modules/jose/.+\\.js$': fromRoot('infra/jest/esm-to-cjs.js'),
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  moduleNameMapper: {
    '^@restbus/infra$': fromRoot('infra/runtime/src/index.ts'),
    '^@restbus/infra/testing$': fromRoot('infra/runtime/src/testing/index.ts'),
    '^@restbus/project-format$': fromRoot('infra/project-format/src/index.ts'),
    '^@restbus/project-format/testing$': fromRoot('infra/project-format/src/testing/index.ts'),
    '^@restbus/openapi$': fromRoot('infra/openapi/src/index.ts'),
    '^@restbus/openapi/paths$': fromRoot('infra/openapi/src/paths.ts'),
    '^@restbus/mock-server$': fromRoot('mock-server/src/index.ts'),
    '^@restbus/mock-server/check$': fromRoot('mock-server/src/check.ts'),
    '^@restbus/gateway/testing$': fromRoot('gateway/src/testing/index.ts'),
  },
  ...(name === 'e2e' ? { setupFiles: ['<rootDir>/src/setup-env.ts'], slowTestThreshold: 120 } : {}),
});

module.exports = {
  globalSetup: '<rootDir>/infra/jest/build-before-tests.js',
  // One worker when jest is run by hand. `npm test` (infra/jest/run-test-phases.js) runs the packages' suites on two
  // and, beside them, the e2e suites one at a time: three workers with the two Docker stacks beside the other suites
  // starved the cluster stack until its elections and lame-duck restarts failed calls (issue 45).
  maxWorkers: Number(process.env.RESTBUS_TEST_WORKERS ?? 1),
  testSequencer: '<rootDir>/infra/jest/slow-first-sequencer.js',
  projects: packages.map(projectFor),
  reporters: ['default', '<rootDir>/infra/jest/summary-reporter.js'],
  // A deadline for a test that hangs, never a measure: ten times what the slow tests take (30 s on a loaded machine),
  // so that a busy machine cannot trip it. A test file does not set a shorter one (issue 45).
  testTimeout: 300_000,
};
