import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { LoadResult } from './load-result';

const run = promisify(execFile);

function toMs(value: string, unit: string): number {
  const factor: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
  return Number(value) * (factor[unit] ?? NaN);
}

/** Loads `url` with wrk (closed loop, keep-alive) and reads throughput and the latency percentiles it prints. */
export async function runWrk(url: string, connections: number, seconds: number, script?: string): Promise<LoadResult> {
  let stdout: string;
  try {
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...(script ? ['-s', script] : []), url];
    ({ stdout } = await run('wrk', args, { timeout: (seconds + 30) * 1000 }));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error('wrk is not installed (Debian: apt-get install wrk)');
    throw err;
  }
  const percentile = (p: string): number => {
    const match = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(stdout);
    if (!match) throw new Error(`cannot read the ${p}% latency from wrk:\n${stdout}`);
    return toMs(match[1], match[2]);
  };
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(stdout);
  const total = /(\d+) requests in/.exec(stdout);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  if (!rps || !total) throw new Error(`cannot read wrk's output:\n${stdout}`);
  if (errors) throw new Error(`${errors[1]} responses of ${url} were errors:\n${stdout}`);
  return {
    requestsPerSecond: Number(rps[1]),
    p50: percentile('50'),
    p99: percentile('99'),
    requests: Number(total[1]),
  };
}
