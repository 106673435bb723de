import type { KV, NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { RestbusError } from '../errors/restbus-error';
import { readErrorMessage } from '../errors/read-caught-error';

/** How long one write or JetStream API request may wait for its answer before it counts as unavailable. */
export const STORE_REQUEST_MS = 2000;
const NO_ROOM = /no suitable peers|insufficient resources|replicas > 1 not supported/i;

/**
 * JetStream peers the connected server knows: a clustered server gossips every member's client URL. A server
 * that hides them (no_advertise) still says it is clustered: then three are assumed, and creation steps down.
 */
function countPeers(nc: NatsConnection): number {
  const info = nc.info;
  if (!info?.cluster) return 1;
  const urls = new Set(info.connect_urls ?? []);
  return urls.size > 0 ? urls.size : 3;
}

export interface BucketOptions {
  /** Replicas the bucket must have; by default min(3, JetStream peers). */
  replicas?: number;
  /** How long a value is kept after its last write (ms), when set at creation; by default for ever. */
  ttlMs?: number;
  /** Bytes the bucket keeps at most, set at creation: past them, the oldest values go. By default no bound. */
  maxBytes?: number;
  logger: Logger;
}

/**
 * Opens (creating when absent) a key-value bucket with one value per key and as many replicas as asked, or
 * min(3, peers): a bucket on one node of a cluster is lost with that node. A bucket that exists with fewer
 * replicas is raised (a stream update, which JetStream carries out by copying to the new peers).
 */
export async function openBucket(nc: NatsConnection, bucket: string, options: BucketOptions): Promise<KV> {
  const logger = options.logger.child({ component: 'store', bucket });
  const desired = options.replicas ?? Math.min(3, countPeers(nc));
  const js = nc.jetstream({ timeout: STORE_REQUEST_MS });
  let kv: KV | undefined;
  for (let replicas = desired; !kv; replicas--) {
    try {
      kv = await js.views.kv(bucket, {
        history: 1,
        replicas,
        ...(options.ttlMs === undefined ? {} : { ttl: options.ttlMs }),
        ...(options.maxBytes === undefined ? {} : { max_bytes: options.maxBytes }),
      });
    } catch (err) {
      const message = readErrorMessage(err);
      if (!NO_ROOM.test(message)) throw err;
      if (options.replicas !== undefined || replicas <= 1) {
        throw new RestbusError(
          'CONFIG_INVALID',
          `the bucket ${bucket} cannot have ${replicas} replicas: JetStream says "${message}" (see --kvReplicas)`,
          { cause: err },
        );
      }
      logger.warn(
        { replicas: replicas - 1 },
        `JetStream has no room for ${replicas} replicas of ${bucket}; trying ${replicas - 1}`,
      );
    }
  }
  await raiseReplicas(nc, bucket, desired, logger);
  return kv;
}

async function raiseReplicas(nc: NatsConnection, bucket: string, desired: number, logger: Logger): Promise<void> {
  const jsm = await nc.jetstreamManager({ timeout: STORE_REQUEST_MS });
  const stream = `KV_${bucket}`;
  const { config } = await jsm.streams.info(stream);
  if (config.num_replicas >= desired) return;
  try {
    await jsm.streams.update(stream, { ...config, num_replicas: desired });
    logger.info(
      { from: config.num_replicas, to: desired },
      `raised the replicas of ${bucket} from ${config.num_replicas} to ${desired}`,
    );
  } catch (err) {
    logger.warn(
      { err, from: config.num_replicas, to: desired },
      `could not raise the replicas of ${bucket}; it keeps ${config.num_replicas}`,
    );
  }
}
