import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  name: string;
  level?: string;
  /** Where the JSON lines go; stdout when absent (tests pass a stream they read). */
  destination?: DestinationStream;
}

/** A pino logger for one program; components take `logger.child({ component })`, errors go under `err`. */
export function createLogger(options: LoggerOptions): Logger {
  return pino({ name: options.name, level: options.level ?? 'info' }, options.destination);
}
