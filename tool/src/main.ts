#!/usr/bin/env node
// Placeholder until the project tool is built (issue #6): it knows no command yet and says so, rather than
// pretend to create or change a project.
import { readPackageVersion } from '@restbus/infra';

const argv = process.argv.slice(2);
if (argv.includes('--version') || argv.includes('-V')) {
  process.stdout.write(`${readPackageVersion(__dirname)}\n`);
} else {
  process.stderr.write(
    `rest-tool: ${argv[0] ? `the command "${argv[0]}" is` : 'the commands create, add, add-bulk, docs and test are'} not implemented yet (issue #6); nothing was written.\n`,
  );
  process.exitCode = 1;
}
