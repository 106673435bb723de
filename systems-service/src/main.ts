#!/usr/bin/env node
// Placeholder until the systems API (getSystems, postSystems, deleteSystems) is built (issue #4): it says so and fails, rather than pretend to serve.
import { readPackageVersion } from '@restbus/infra';

if (process.argv.includes('--version') || process.argv.includes('-V')) {
  process.stdout.write(`${readPackageVersion(__dirname)}\n`);
} else {
  process.stderr.write(
    'systems-service: the systems API (getSystems, postSystems, deleteSystems) is not implemented yet (issue #4); nothing is served.\n',
  );
  process.exitCode = 1;
}
