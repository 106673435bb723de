import type { LoadRun } from './cluster-load';
import type { ClusterService, ClusterStack } from './cluster-stack';

/** The containers whose logs say what happened to a call: the gateways and the services behind /persons. */
const WITNESSES: readonly ClusterService[] = ['gateway-1', 'gateway-2', 'person-service-1', 'person-service-2'];
/** pino's warn level: what a component logs when something did not go as it should. */
const WARN = 40;
// Enough to see a reconnect, a resend or a store retry; the stack is torn down after the file, logs with it.
const MOST_LINES = 40;

interface LogLine {
  level?: number;
  time?: number;
}

function parse(line: string): LogLine | undefined {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
}

/**
 * What the stack's logs say about the failed requests of a run, for the failing test's output (the containers go
 * with the stack): each container's lines that carry a failed request's trace id, and its warnings and errors from
 * a second before the first failure was sent until its last one was answered. Empty when nothing failed.
 */
export async function describeFailures(stack: ClusterStack, run: LoadRun): Promise<string> {
  const failed = run.outcomes.filter((outcome) => outcome.status < 200 || outcome.status >= 300);
  if (failed.length === 0) return '';
  const from = run.startedAt + Math.min(...failed.map((outcome) => outcome.at)) - 1000;
  const until = run.startedAt + Math.max(...failed.map((outcome) => outcome.at + outcome.ms)) + 1000;
  const traceIds = failed.map((outcome) => outcome.traceId);
  const sections: string[] = [];
  for (const service of WITNESSES) {
    const text = await stack.logs(service).catch((err: unknown) => `(no logs: ${String(err)})`);
    const lines = text.split('\n').filter((line) => {
      if (traceIds.some((id) => line.includes(id))) return true;
      const entry = parse(line);
      return !!entry && (entry.level ?? 0) >= WARN && (entry.time ?? 0) >= from && (entry.time ?? 0) <= until;
    });
    const shown = lines.slice(0, MOST_LINES);
    const more = lines.length > shown.length ? [`  … ${lines.length - shown.length} lines more`] : [];
    sections.push(`${service}: ${lines.length} lines`, ...shown.map((line) => `  ${line}`), ...more);
  }
  const heading = `logs around the ${failed.length} failed request(s), trace ids ${traceIds.join(', ')}:`;
  return `${[heading, ...sections].join('\n')}\n`;
}
