import type { CallCounts, Growth, SoakSummary } from './summarise-soak';

export interface SoakReportInput {
  /** What ran: length, rate, the fault. */
  heading: string;
  summary: SoakSummary;
  /** Acknowledged writes the list no longer holds. */
  lost: number;
  /** The minute growth is measured from. */
  fromMinute: number;
}

const MIB = 1024 * 1024;
const GROWTH_BAR = 10;
const inBytes = (row: Growth): boolean => row.metric !== 'handles' && row.metric !== 'subscriptions';
/**
 * The bar is on resident memory and on the heap's live data: heapLive (in use just after a full collection) where
 * the process tells it, else the lowest heap in use sampled. Heap committed and external memory, handles and
 * subscriptions are shown to explain it (clients move between nodes).
 */
function isBarred(row: Growth, growth: readonly Growth[]): boolean {
  if (row.metric === 'rss' || row.metric === 'heapLive') return true;
  return row.metric === 'heap' && !growth.some((other) => other.process === row.process && other.metric === 'heapLive');
}

const byStatus = (statuses: CallCounts['statuses']): string =>
  Object.entries(statuses)
    .map(([status, count]) => `${status} ×${count}`)
    .join(', ') || '-';

function formatGrowth(row: Growth, barred: boolean): string {
  const inMib = inBytes(row);
  const value = (n: number): string => (inMib ? (n / MIB).toFixed(1) : n.toFixed(0));
  const percent = `${row.percent >= 0 ? '+' : ''}${row.percent.toFixed(1)} %`;
  const note = row.restarted
    ? '  restarted in between, not a leak'
    : barred && row.percent >= GROWTH_BAR
      ? `  <- ${GROWTH_BAR} % or more`
      : '';
  const values = `${value(row.start)} → ${value(row.end)}${inMib ? ' MiB' : ''}`;
  return `  ${row.process.padEnd(22)} ${row.metric.padEnd(13)} ${values.padStart(22)}  ${percent.padStart(9)}${note}`;
}

/** The soak's result as a person reads it on the terminal: the calls, each fault window, each process's growth, the verdict. */
export function formatSoakReport({ heading, summary, lost, fromMinute }: SoakReportInput): string {
  const { outside, windows, growth } = summary;
  const windowFailures = windows.reduce((sum, window) => sum + window.failed, 0);
  const barred = (row: Growth): boolean => isBarred(row, growth);
  const grown = growth.filter((row) => barred(row) && !row.restarted && row.percent >= GROWTH_BAR);
  const verdict = (ok: boolean): string => (ok ? 'ok' : 'FAIL');
  const lines = [
    heading,
    `calls ${summary.requests}, failed ${summary.errors}`,
    `outside the fault windows: ${outside.calls} calls, ${outside.failed} failed${outside.failed ? ` (${byStatus(outside.statuses)})` : ''}, p99 ${outside.p99Ms} ms`,
  ];
  if (windows.length) {
    lines.push(
      'fault windows (a call counts in a window when it was in flight during it):',
      `  ${'#'.padStart(2)}  ${'fault'.padEnd(26)} ${'minutes'.padEnd(11)} ${'calls'.padStart(6)} ${'failed'.padStart(6)}  ${'failed by status'.padEnd(18)} ${'Retry-After'.padEnd(11)} ${'p99 ms'.padStart(7)}`,
      ...windows.map(
        (window, index) =>
          `  ${String(index + 1).padStart(2)}  ${window.label.padEnd(26)} ${`${window.from.toFixed(1)}–${window.to.toFixed(1)}`.padEnd(11)} ${String(window.calls).padStart(6)} ${String(window.failed).padStart(6)}  ${byStatus(window.statuses).padEnd(18)} ${(window.failed ? `${window.withRetryAfter} of ${window.failed}` : '-').padEnd(11)} ${String(window.p99Ms).padStart(7)}`,
      ),
    );
  }
  lines.push(
    `acknowledged writes lost: ${lost}`,
    `KV_persons replica lag: at most ${summary.kvLag.max} operations${
      summary.kvLag.process ? ` (${summary.kvLag.process} at minute ${summary.kvLag.minute!.toFixed(1)})` : ''
    }; at the end ${
      Object.entries(summary.kvLag.atEnd)
        .map(([node, lag]) => `${node} ${lag}`)
        .join(', ') || '-'
    }`,
    `growth from minute ${fromMinute} to the end, outside fault windows (a minute at each end: the median; heap in use: the lowest of 5 minutes; heapLive: in use just after a full collection):`,
    ...growth.map((row) => formatGrowth(row, barred(row))),
    'verdict:',
    `  errors outside the fault windows: ${summary.errorsOutsideFaults} (bar 0)  ${verdict(summary.errorsOutsideFaults === 0)}`,
    `  failed calls in fault windows: ${windowFailures}${
      windowFailures === 0
        ? ''
        : summary.faultErrorsWithoutRetryAfter === 0
          ? ', all 503 with Retry-After'
          : `, ${summary.faultErrorsWithoutRetryAfter} of them not 503 with Retry-After`
    }`,
    `  acknowledged writes lost: ${lost} (bar 0)  ${verdict(lost === 0)}`,
    growth.some(barred)
      ? `  memory (RSS, heap) grown ${GROWTH_BAR} % or more from minute ${fromMinute} (not restarted): ${
          grown.map((row) => `${row.process} ${row.metric}`).join(', ') || 'none'
        }  ${verdict(grown.length === 0)}`
      : `  memory (RSS, heap): not measured, fewer than 2 minutes outside fault windows from minute ${fromMinute}  FAIL`,
  );
  return `${lines.join('\n')}\n`;
}
