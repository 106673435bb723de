import { onShutdownSignal, runMain } from '../app/run-main';
import { createExecutive, type ExecutiveOptions } from './create-executive';

/** What a service's main.ts calls: starts the executive with the process' argv and env, stops it on SIGTERM/SIGINT. */
export function runExecutive<C>(options: Omit<ExecutiveOptions<C>, 'argv' | 'env'>): void {
  const executive = createExecutive<C>({ ...options, argv: process.argv.slice(2), env: process.env });
  onShutdownSignal(() => executive.stop());
  runMain(options.name, async () => {
    await executive.start();
  });
}
