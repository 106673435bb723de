#!/usr/bin/env node
// rest-tool: the one file with side effects (process arguments, streams, exit code).
import { readPackageVersion } from '@restbus/infra';
import { runCli } from './cli/run-cli';
import { generateDocs } from './docs';
import { generateTests } from './testgen';

void runCli(process.argv.slice(2), {
  version: readPackageVersion(__dirname),
  cwd: process.cwd(),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  generateDocs,
  generateTests,
}).then((code) => {
  process.exitCode = code;
});
