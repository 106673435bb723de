#!/usr/bin/env node
// Placeholder until the mock server is built (issue #5): it says so and fails, rather than pretend to serve.
import { readPackageVersion } from '@restbus/infra';

if (process.argv.includes('--version') || process.argv.includes('-V')) {
  process.stdout.write(`${readPackageVersion(__dirname)}\n`);
} else {
  process.stderr.write('restbus-mock: the mock server is not implemented yet (issue #5); nothing is served.\n');
  process.exitCode = 1;
}
