import pino from 'pino';
import type { SettingSpec } from '../config/load-config';
import { createExecutive, type Executive, type Startup } from '../executive/create-executive';

export interface TestServiceOptions<C> {
  name: string;
  natsUrl: string;
  startups: ReadonlyArray<Startup<C>>;
  settings?: readonly SettingSpec[];
  /** More command-line arguments, e.g. `['--store', 'memory']`. */
  argv?: string[];
}

/** Starts a service through its executive, as its main.ts would, against a test NATS server, logging nothing. */
export async function startTestService<C>(options: TestServiceOptions<C>): Promise<Executive<C>> {
  const executive = createExecutive<C>({
    name: options.name,
    version: '0.0.0',
    description: 'test',
    settings: options.settings,
    startups: options.startups,
    argv: ['-n', options.natsUrl, ...(options.argv ?? [])],
    env: {},
    logger: pino({ level: 'silent' }),
  });
  await executive.start();
  return executive;
}
