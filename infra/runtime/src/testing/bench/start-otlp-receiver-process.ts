import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * An OTLP receiver in a process of its own for a bench (its work is the collector's, not the measured program's),
 * counting what it takes and keeping none of it.
 */
export async function startOtlpReceiverProcess(): Promise<{ url: string; child: ChildProcess }> {
  const testing = JSON.stringify(resolve(__dirname, '../index.js'));
  const script =
    `require(${testing}).OtlpReceiver.start({ keepSpans: false })` +
    '.then((r) => { console.log(r.url); setInterval(() => undefined, 60_000); })';
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = String((await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next()).value);
  return { url, child };
}
