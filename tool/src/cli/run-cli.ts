import { CommanderError } from 'commander';
import { describeFileError } from '../project/describe-file-error';
import { showPath } from '../project/show-path';
import { createProgram } from './create-program';
import type { ProgramDeps } from './program-deps';

/** Commander errors that mean the command line was not understood: exit 2, like other Unix tools' usage errors. */
const USAGE_ERRORS = new Set([
  'commander.unknownCommand',
  'commander.unknownOption',
  'commander.excessArguments',
  'commander.missingArgument',
  'commander.optionMissingArgument',
  'commander.missingMandatoryOptionValue',
  'commander.invalidArgument',
  'commander.conflictingOption',
  'commander.help',
]);

/**
 * Runs rest-tool and resolves to its exit code: 0 done (or help/version shown), 1 failed (a line per problem on
 * stderr, nothing written), 2 the command line was not understood.
 */
export async function runCli(argv: readonly string[], deps: ProgramDeps): Promise<number> {
  try {
    await createProgram(deps).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed its message (and the suggestion, when it has one).
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      return USAGE_ERRORS.has(err.code) ? 2 : err.exitCode || 1;
    }
    // A file error nothing caught names its paths as the user reads them: in the container, not /work/….
    const message = describeFileError(err, (path) => showPath(deps.cwd, path));
    for (const line of message.split('\n')) deps.stderr(`rest-tool: ${line}\n`);
    return 1;
  }
}
