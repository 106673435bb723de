/** One reading of one process at one time of the soak. */
export interface Sample {
  /** Minutes since the soak started. */
  minute: number;
  /** The compose service (`gateway-1`, `nats-2` …). */
  process: string;
  /** The container's memory (docker stats: the cgroup's resident memory), bytes. */
  rss?: number;
  /** Node's heap in use, bytes (the gateways' /-/metrics; the services' $SRV.STATS). */
  heap?: number;
  /** Node's heap in use just after its last full collection, bytes: the data it holds (absent before the first). */
  heapLive?: number;
  /** What V8 has committed for its heap, bytes: it keeps pages it grew into, which RSS shows. */
  heapTotal?: number;
  /** Node's memory outside its heap that V8 tracks (Buffers …), bytes: RSS growth without it is the allocator's. */
  external?: number;
  /** Node's active handles (sockets, timers …). */
  handles?: number;
  /** A NATS node's subscriptions (its /varz). */
  subscriptions?: number;
  /** How many operations the replicas of KV_persons on this node are behind its leader (its /jsz), 0 on the leader. */
  kvLag?: number;
}

const UNITS: Record<string, number> = {
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  kB: 1000,
  MB: 1000 ** 2,
  GB: 1000 ** 3,
};

/** `12.5MiB / 23.4GiB` (docker stats' MemUsage) as bytes in use; undefined when it cannot be read. */
export function parseMemUsage(text: string): number | undefined {
  const match = /^\s*([\d.]+)\s*([KMG]i?B|[kMG]B|B)\b/.exec(text);
  if (!match) return undefined;
  const unit = UNITS[match[2]];
  return unit === undefined ? undefined : Math.round(Number(match[1]) * unit);
}

/** The value of a Prometheus gauge or counter without labels, from /-/metrics text. */
export function readMetric(metrics: string, name: string): number | undefined {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

interface StreamCluster {
  leader?: string;
  replicas?: Array<{ name: string; lag?: number }>;
}
interface Jsz {
  account_details?: Array<{ stream_detail?: Array<{ name: string; cluster?: StreamCluster }> }>;
}

/**
 * How many operations each node's replica of a stream is behind its leader, from the leader's own `/jsz` (a
 * follower's view of its peers is stale, and names no lag of its own); the leader at 0, a replica whose lag the
 * leader leaves out at 0 too (nats-server omits a 0). Empty when no node that answered leads the stream.
 */
export function readKvLag(views: ReadonlyMap<string, unknown>, stream: string): Map<string, number> {
  const lag = new Map<string, number>();
  for (const [node, view] of views) {
    const cluster = (view as Jsz | undefined)?.account_details
      ?.flatMap((account) => account.stream_detail ?? [])
      .find((detail) => detail.name === stream)?.cluster;
    if (cluster?.leader !== node) continue;
    lag.set(node, 0);
    for (const replica of cluster.replicas ?? []) lag.set(replica.name, replica.lag ?? 0);
  }
  return lag;
}
