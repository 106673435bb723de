// One jest project per package; ts-jest runs the TypeScript sources directly, so no build is needed first.
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
  projects: packages.map(projectFor),
  reporters: ['default', '<rootDir>/infra/jest/summary-reporter.js'],
  testTimeout: 30_000,
};
