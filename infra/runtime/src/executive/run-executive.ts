import { onShutdownSignal, runMain } from '../app/run-main';
import { createExecutive, type ExecutiveOptions } from './create-executive';

/**
 * What a service's main.ts calls: starts the executive with the process' argv and env (logging pretty lines when
 * standard output is a terminal), stops it on SIGTERM/SIGINT.
 */
export function runExecutive<C>(options: Omit<ExecutiveOptions<C>, 'argv' | 'env' | 'terminal'>): void {
  const executive = createExecutive<C>({
    ...options,
    argv: process.argv.slice(2),
    env: process.env,
    terminal: process.stdout.isTTY,
  });
  onShutdownSignal(() => executive.stop());
  runMain(options.name, async () => {
    await executive.start();
  });
}
