import { writeFile } from 'node:fs/promises';
import { median, runWrk, type LoadResult } from '@restbus/infra/testing';

/** The gateway's reply checks (--validateReplies): each gateway of the stack, in front of the same person-service. */
export const REPLY_MODES = ['off', 'report', 'enforce'] as const;
export type ReplyMode = (typeof REPLY_MODES)[number];

/**
 * The two reads measured. `same list`: every reply is the same 100 persons, what a client polling a collection
 * gets; the checker compares the bytes with the last valid body and skips the parse. `two pages`: replies alternate
 * between two bodies (`?limit=50`, `?limit=49`), so every reply is parsed and validated: the check's full cost.
 */
export const REPLY_READS = ['same list', 'two pages'] as const;
export type ReplyRead = (typeof REPLY_READS)[number];

/** Most a check may cost: the gateway keeps at least this share of its requests/s with checks on. */
export const REPLY_CHECK_GOAL = 0.95;

export interface ReplyCheckResults {
  record(read: ReplyRead, mode: ReplyMode, connections: number, result: LoadResult): void;
  /** Lines of a markdown table and the goal, ratios taken round by round against `off`. */
  format(connections: number[]): string[];
}

/** Writes a wrk script whose requests alternate between two pages of the list. */
export async function writeTwoPagesScript(file: string): Promise<void> {
  const lines = [
    'local paths = { "/persons?limit=50", "/persons?limit=49" }',
    'local n = 0',
    'request = function()',
    '  n = n + 1',
    '  return wrk.format(nil, paths[(n % 2) + 1])',
    'end',
    '',
  ];
  await writeFile(file, lines.join('\n'));
}

/**
 * One round of the reply checks: the three gateways measured in alternating slices (off report enforce, then
 * enforce report off, …), so that a slow spell of this shared machine weighs on all three rather than on one.
 */
export async function measureReplyChecks(options: {
  gateways: Record<ReplyMode, string>;
  twoPagesScript: string;
  connections: number[];
  slices: number;
  sliceSeconds: number;
  results: ReplyCheckResults;
}): Promise<void> {
  const { gateways, twoPagesScript, connections, slices, sliceSeconds, results } = options;
  for (const read of REPLY_READS) {
    const script = read === 'two pages' ? twoPagesScript : undefined;
    for (const count of connections) {
      const measured = new Map<ReplyMode, LoadResult[]>(REPLY_MODES.map((mode) => [mode, []]));
      for (let slice = 0; slice < slices; slice++) {
        for (const mode of slice % 2 ? [...REPLY_MODES].reverse() : REPLY_MODES) {
          measured.get(mode)!.push(await runWrk(`${gateways[mode]}/persons`, count, sliceSeconds, script));
        }
      }
      for (const [mode, list] of measured) {
        const requests = list.reduce((sum, result) => sum + result.requests, 0);
        results.record(read, mode, count, {
          requestsPerSecond: requests / (sliceSeconds * list.length),
          p50: median(list.map((result) => result.p50)),
          p99: median(list.map((result) => result.p99)),
          requests,
        });
      }
    }
  }
}

const fmt = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

export function createReplyCheckResults(): ReplyCheckResults {
  const runs = new Map<string, LoadResult[]>();
  const key = (read: ReplyRead, mode: ReplyMode, connections: number): string => `${read}|${mode}|${connections}`;
  const runsOf = (read: ReplyRead, mode: ReplyMode, connections: number): LoadResult[] =>
    runs.get(key(read, mode, connections)) ?? [];
  const ratios = (read: ReplyRead, mode: ReplyMode, connections: number): number[] => {
    const reference = runsOf(read, 'off', connections);
    return runsOf(read, mode, connections).map(
      (result, round) => result.requestsPerSecond / reference[round].requestsPerSecond,
    );
  };
  return {
    record(read, mode, connections, result) {
      runs.set(key(read, mode, connections), [...runsOf(read, mode, connections), result]);
    },
    format(connections) {
      const lines = [
        '| read | replies checked | connections | requests/s | p50 ms | p99 ms | requests/s vs off | rounds |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ];
      for (const read of REPLY_READS) {
        for (const count of connections) {
          for (const mode of REPLY_MODES) {
            const list = runsOf(read, mode, count);
            const each = ratios(read, mode, count);
            lines.push(
              `| ${read} | ${mode} | ${count} | ${fmt(median(list.map((r) => r.requestsPerSecond)), 0)} | ` +
                `${fmt(median(list.map((r) => r.p50)), 3)} | ${fmt(median(list.map((r) => r.p99)), 3)} | ` +
                `${fmt(median(each))}x | ${each.map((value) => fmt(value)).join(', ')} |`,
            );
          }
        }
      }
      const goals = REPLY_READS.flatMap((read) =>
        (['report', 'enforce'] as const).map((mode) => {
          const measured = median(ratios(read, mode, 64));
          return `- ${read}, ${mode}: ${fmt(measured)}x (${measured >= REPLY_CHECK_GOAL ? 'met' : 'MISSED'})`;
        }),
      );
      return [
        ...lines,
        '',
        `Goal: with replies checked (sample 1.0), >= ${REPLY_CHECK_GOAL}x the requests/s of the same gateway without, at 64 connections.`,
        ...goals,
      ];
    },
  };
}
