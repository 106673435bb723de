#!/usr/bin/env node
// rest-tool: the one file with side effects (process arguments, streams, exit code).
import { readPackageVersion } from '@restbus/infra';
import { commandModules } from './cli/load-command-modules';
import { runCli } from './cli/run-cli';

/**
 * Writes to a stream until its reader goes away (`rest-tool … | head -1`): then the rest of the output has nobody
 * to read it, which is no failure, so the command finishes its work quietly, with its own exit code (as `cat | head`
 * ends well), instead of dying of an unhandled EPIPE halfway through writing files.
 */
function createWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let gone = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    gone = true;
  });
  return (text) => {
    if (!gone) stream.write(text);
  };
}

void runCli(process.argv.slice(2), {
  version: readPackageVersion(__dirname),
  cwd: process.cwd(),
  env: process.env,
  stdout: createWriter(process.stdout),
  stderr: createWriter(process.stderr),
  generateDocs: (options) => commandModules.docs().generateDocs(options),
  generateTests: (options) => commandModules.testgen().generateTests(options),
}).then((code) => {
  process.exitCode = code;
});
