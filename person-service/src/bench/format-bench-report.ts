import type { BenchResults } from './bench-results';

/** The speed goal of issue 12 for the read path, against the framework-free forwarder in the same run. */
export const GOAL = { connections: 64, throughputRatio: 0.8, latencyConnections: 1, p50Ratio: 1.3 };

export interface BenchReportInput {
  results: BenchResults;
  reference: string;
  scenarios: string[];
  /** The scenarios the goal applies to. */
  reads: string[];
  connections: number[];
  rounds: number;
  seconds: number;
  /** The machine's 1-minute load average before and after the run, and its cores: other jobs skew the figures. */
  load: { before: number; after: number; cores: number };
}

const fmt = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');

function formatTable({ results, scenarios, connections }: BenchReportInput): string[] {
  const lines = [
    '| call | connections | requests/s | p50 ms | p99 ms | requests/s vs forwarder | p50 vs forwarder | p99 vs forwarder |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const count of connections) {
    for (const name of scenarios) {
      const s = results.summarize(name, count);
      lines.push(
        `| ${name} | ${count} | ${fmt(s.requestsPerSecond, 0)} | ${fmt(s.p50, 3)} | ${fmt(s.p99, 3)} | ` +
          `${fmt(s.throughputRatio)}x | ${fmt(s.p50Ratio)}x | ${fmt(s.p99Ratio)}x |`,
      );
    }
  }
  return lines;
}

function formatGoal({ results, reads }: BenchReportInput): string[] {
  const lines = [
    `Goal: >= ${GOAL.throughputRatio}x the forwarder's requests/s at ${GOAL.connections} connections, ` +
      `p50 <= ${GOAL.p50Ratio}x its p50 at ${GOAL.latencyConnections} connection.`,
  ];
  for (const name of reads) {
    const throughput = results.summarize(name, GOAL.connections).throughputRatio;
    const p50 = results.summarize(name, GOAL.latencyConnections).p50Ratio;
    lines.push(
      `- ${name}: ${fmt(throughput)}x requests/s (${verdict(throughput >= GOAL.throughputRatio)}), ` +
        `${fmt(p50)}x p50 (${verdict(p50 <= GOAL.p50Ratio)})`,
    );
  }
  return lines;
}

export function formatBenchReport(input: BenchReportInput): string {
  const { rounds, seconds, reference, load } = input;
  return [
    `Medians of ${rounds} rounds of ${seconds} s (wrk, 1 thread); ratios are medians of each round's ratio to the ` +
      `${reference} at the same connections.`,
    `Load average (1 min): ${fmt(load.before)} before, ${fmt(load.after)} after, on ${load.cores} cores.`,
    '',
    ...formatTable(input),
    '',
    ...formatGoal(input),
    '',
  ].join('\n');
}
