import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export type LogLine = Record<string, unknown> & { level: number; msg: string };

export interface CapturedLog {
  readonly logger: Logger;
  /** Every line so far, parsed. */
  readonly lines: LogLine[];
  /** The first line, past or future, that matches; rejects when none comes within `ms`. */
  waitForLine(matches: (line: LogLine) => boolean, ms?: number): Promise<LogLine>;
}

/** A pino logger (info and up) whose JSON lines a test reads, and waits for. */
export function captureLogLines(): CapturedLog {
  const lines: LogLine[] = [];
  const waiters = new Set<(line: LogLine) => void>();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = JSON.parse(chunk.toString()) as LogLine;
      lines.push(line);
      for (const waiter of waiters) waiter(line);
      done();
    },
  });
  return {
    logger: pino({ level: 'info' }, stream),
    lines,
    waitForLine(matches, ms = 10_000) {
      const seen = lines.find(matches);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no such log line within ${ms} ms; got ${JSON.stringify(lines.map((l) => l.msg))}`));
        }, ms);
        const waiter = (line: LogLine): void => {
          if (!matches(line)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(line);
        };
        waiters.add(waiter);
      });
    },
  };
}
