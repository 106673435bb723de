import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { assertConfigFolder } from '../project/project-config';
import { showPath } from '../project/show-path';
import type { ProgramDeps, Verbose } from './program-deps';

/** What every command's action reports through, built once per program. */
export interface CommandContext {
  /** The program's deps; its generators refuse a folder that is not a project first, as every command does. */
  deps: ProgramDeps;
  /** A path as the user should read it: relative to the current folder when inside it (see showPath). */
  show(path: string): string;
  /** A line on stdout. */
  say(line: string): void;
  /** A line on stderr, `rest-tool: warning: …`. */
  warn(line: string): void;
  /** `-v`: progress lines on stdout, else nothing. */
  verboseFor(enabled: boolean | undefined): Verbose | undefined;
  /** The project of a `-c` value: the config file, resolved against the current folder, and its folder. */
  projectOf(config: string): { projectDir: string; configFile: string };
}

export function createCommandContext(deps: ProgramDeps): CommandContext {
  const say = (line: string): void => deps.stdout(`${line}\n`);
  // docs and test get an absolute config file (projectOf): the check names its folder relative to the current one.
  const inProject =
    <T extends { projectDir: string; configFile?: string }, R>(generate: (options: T) => Promise<R>) =>
    async (options: T): Promise<R> => {
      await assertConfigFolder(deps.cwd, resolve(options.projectDir, options.configFile ?? 'config.yml'));
      return generate(options);
    };
  return {
    deps: { ...deps, generateDocs: inProject(deps.generateDocs), generateTests: inProject(deps.generateTests) },
    show: (path) => showPath(deps.cwd, path),
    say,
    warn: (line) => deps.stderr(`rest-tool: warning: ${line}\n`),
    verboseFor: (enabled) => (enabled ? say : undefined),
    projectOf: (config) => {
      const configFile = resolve(deps.cwd, config);
      return { projectDir: dirname(configFile), configFile };
    },
  };
}

export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** `-c, --config <file>`, default `config.yml`: every command that works on a project takes it. */
export const withConfigOption = (command: Command): Command =>
  command.option('-c, --config <file>', "the project's config.yml (its folder is the project)", 'config.yml');

/** `--strict`: the commands that report warnings. */
export const withStrictOption = (command: Command): Command =>
  command.option(
    '--strict',
    'treat warnings (files only documentation and generated tests read, and other notices) as errors',
  );

/**
 * Every missing required option in one message (commander would stop at the first): a usage error, exit 2.
 * `options` is what commander hands the action (`command.opts()`); `flags` pairs each required key with its flag.
 */
export function requireOptions<K extends string, O extends { [P in K]?: unknown }>(
  command: Command,
  options: O,
  flags: ReadonlyArray<readonly [K, string]>,
): asserts options is O & { [P in K]-?: Exclude<O[P], undefined> } {
  const missing = flags.filter(([key]) => options[key] === undefined).map(([, flag]) => flag);
  if (missing.length) {
    command.error(`error: missing required option${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`, {
      exitCode: 2,
      code: 'commander.missingMandatoryOptionValue',
    });
  }
}
