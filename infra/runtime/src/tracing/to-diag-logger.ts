import type { DiagLogger } from '@opentelemetry/api';

/**
 * The SDK's own complaints (an export that failed, a setting it ignored) as warnings, their arguments joined into one
 * bounded `detail`; its chatter below warnings is dropped. The program's thread and its export worker say them alike.
 */
export function toDiagLogger(warn: (message: string, detail?: string) => void): DiagLogger {
  const complain = (message: string, ...args: unknown[]): void => {
    warn(message, args.length > 0 ? args.map(String).join(' ').slice(0, 500) : undefined);
  };
  const ignore = (): void => undefined;
  return { error: complain, warn: complain, info: ignore, debug: ignore, verbose: ignore };
}
