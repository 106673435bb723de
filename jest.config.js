// One jest project per package; ts-jest runs the TypeScript sources directly. The global setup still builds
// (tsc -b, incremental) because some suites run the built binaries and the packed packages, as users do.
const packages = ['infra', 'gateway', 'person-service', 'systems-service', 'mock-server', 'tool', 'e2e'];

const projectFor = (name) => ({
  displayName: name,
  rootDir: `<rootDir>/${name}`,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/../tsconfig.test.json' }],
  },
  moduleNameMapper: {
    '^@restbus/infra$': '<rootDir>/../infra/src/index.ts',
    '^@restbus/infra/testing$': '<rootDir>/../infra/src/testing/index.ts',
    '^@restbus/mock-server$': '<rootDir>/../mock-server/src/index.ts',
  },
  ...(name === 'e2e' ? { setupFiles: ['<rootDir>/src/setup-env.ts'], slowTestThreshold: 120 } : {}),
});

module.exports = {
  globalSetup: '<rootDir>/infra/jest/build-before-tests.js',
  projects: packages.map(projectFor),
  reporters: ['default', '<rootDir>/infra/jest/summary-reporter.js'],
  testTimeout: 30_000,
};
