#!/usr/bin/env node
// restbus-mock [environment] [--project <dir>] [--check]
// Loading and validating a project works; serving it is still being built (issue #5), and says so.
import { Command } from 'commander';
import { CommandLineExit, readPackageVersion, runMain } from '@restbus/infra';
import { loadProject } from './project/load-project';

runMain('restbus-mock', async () => {
  const program = new Command('restbus-mock')
    .description('Serves a REST API project from its service.yml descriptors')
    .version(readPackageVersion(__dirname), '-V, --version')
    .argument('[environment]', 'environment of server/config.yml (default: its useEnvironment)')
    .option('--project <dir>', 'the project folder', process.cwd())
    .option('--check', 'validate the project and exit')
    .exitOverride();
  try {
    program.parse(process.argv);
  } catch (err) {
    throw new CommandLineExit((err as { exitCode?: number }).exitCode ?? 1, (err as Error).message);
  }
  const options = program.opts<{ project: string; check?: boolean }>();
  const project = await loadProject({ projectDir: options.project, environment: program.args[0] });
  for (const warning of project.warnings) process.stderr.write(`restbus-mock: warning: ${warning}\n`);
  const summary = `${project.root} is valid: ${project.services.length} services, environment ${project.environment.name}`;
  if (options.check) {
    process.stdout.write(`restbus-mock: ${summary}\n`);
    return;
  }
  process.stderr.write(`restbus-mock: ${summary}; serving it is not implemented yet (issue #5): use --check\n`);
  process.exitCode = 1;
});
