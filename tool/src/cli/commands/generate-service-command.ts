import type { Command } from 'commander';
import { quoteForShell } from '../../create/describe-next-steps';
import { count, type CommandContext } from '../command-context';
import { commandModules } from '../load-command-modules';

export function addGenerateServiceCommand(program: Command, context: CommandContext): void {
  const { deps, say, show, warn } = context;
  program
    .command('generate-service')
    .description(
      'generate a typed NATS service from an OpenAPI 2.0, 3.0 or 3.1 file: types, handlers interface, register, client',
    )
    .argument('<file>', 'the OpenAPI file')
    .argument('[folder]', 'the service folder (default: the current one); an empty one gets a whole runnable service')
    .option(
      '--allow-outside-refs',
      "let $refs read local files outside the API file's folder (the gateway's --allowOutsideRefs)",
    )
    .action(async (file: string, folder: string | undefined, flags: { allowOutsideRefs?: boolean }) => {
      const { generateService, HANDLERS_FILE } = commandModules.generateService();
      const result = await generateService({ cwd: deps.cwd, file, folder, allowOutsideRefs: flags.allowOutsideRefs });
      for (const line of result.warnings) warn(line);
      say(`generated ${show(result.dir)} from ${file}: ${count(result.operations, 'operation')}`);
      // The files a document made the tool read are named: a $ref may point anywhere --allow-outside-refs lets it.
      for (const path of result.read) say(`  read ${path}`);
      for (const path of result.written) say(`  wrote ${path}`);
      for (const path of result.kept) say(`  kept ${path} (yours: never overwritten)`);
      if (result.written.includes(HANDLERS_FILE)) {
        say('next steps:');
        if (result.dir !== deps.cwd) say(`  cd ${quoteForShell(show(result.dir))}`);
        say(`  write the handlers in ${HANDLERS_FILE}, then: npm test && npm start`);
      } else {
        say(`the compiler now names every handler ${HANDLERS_FILE} lacks: npx tsc -p . --noEmit`);
      }
    });
}
