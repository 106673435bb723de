import type { PersonCallResults } from './measure-person-calls';

const fmt = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** A markdown table of both stacks' figures side by side, with the cluster's as a ratio of the single node's. */
export function formatComparison(single: PersonCallResults, cluster: PersonCallResults, connections: number): string {
  const lines = [
    `| call (${connections} connections) | figure | single node | cluster | cluster / single |`,
    '| --- | --- | --- | --- | --- |',
  ];
  const calls: Array<[string, keyof PersonCallResults]> = [
    ['GET /persons', 'list'],
    ['PUT /persons/{id}', 'put'],
  ];
  for (const [name, key] of calls) {
    const figures: Array<[string, number, number, number]> = [
      ['requests/s', single[key].requestsPerSecond, cluster[key].requestsPerSecond, 0],
      ['p50 ms', single[key].p50, cluster[key].p50, 2],
      ['p99 ms', single[key].p99, cluster[key].p99, 2],
    ];
    for (const [figure, one, many, digits] of figures)
      lines.push(`| ${name} | ${figure} | ${fmt(one, digits)} | ${fmt(many, digits)} | ${fmt(many / one, 2)}x |`);
  }
  return lines.join('\n');
}
