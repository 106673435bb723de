import { findMissing, runLoad, summarizeLoad, type LoadRun, type LoadSummary } from '../cluster-load';
import type { ClusterStack, NatsNode } from '../cluster-stack';
import { measureRecovery, type Recovery } from './measure-recovery';

export interface LeaderKillOptions {
  ratePerSecond: number;
  durationMs: number;
  killAtMs: number;
  /** The stream whose leader is killed. */
  stream: string;
}

export interface LeaderKill {
  leader: NatsNode;
  run: LoadRun;
  summary: LoadSummary;
  recovery: Recovery;
  /** Writes answered 2xx during the run that the list does not hold afterwards. */
  lost: string[];
  /** From `docker start` of the killed node until its health check passed. */
  rejoinMs: number;
}

/**
 * Mixed load at a fixed rate through the load balancer; `killAtMs` into it the NATS node leading `stream` is killed
 * (SIGKILL). Afterwards every acknowledged write is looked for, and the node is started again.
 */
export async function runLeaderKill(stack: ClusterStack, options: LeaderKillOptions): Promise<LeaderKill> {
  const leader = await stack.leaderOf(options.stream);
  if (!leader) throw new Error(`no node leads ${options.stream}`);
  const known: string[] = [];
  const run = await runLoad(
    {
      baseUrl: stack.lbUrl,
      ratePerSecond: options.ratePerSecond,
      durationMs: options.durationMs,
      faultAtMs: options.killAtMs,
      fault: () => stack.kill(leader),
    },
    known,
  );
  const lost = await findMissing(stack.lbUrl, known);
  const restarting = Date.now();
  await stack.start(leader);
  return {
    leader,
    run,
    summary: summarizeLoad(run.outcomes),
    recovery: measureRecovery(run.outcomes, run.faultAt ?? options.killAtMs),
    lost,
    rejoinMs: Date.now() - restarting,
  };
}
