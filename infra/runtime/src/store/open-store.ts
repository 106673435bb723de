import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import type { SettingSpec } from '../config/load-config';
import { createMemoryCollection, type Collection } from './collection';
import { activeTracer } from '../tracing/spans';
import { openKvCollection, type ReadConsistency } from './kv-collection';
import { TracedCollection } from './traced-collection';

export type StoreKind = 'jetstream' | 'memory';

/** The settings of a service with state. */
export interface StoreSettings {
  store: StoreKind;
  kvReplicas?: number;
  reads?: ReadConsistency;
}

export const storeSetting: SettingSpec = {
  key: 'store',
  flags: '--store <kind>',
  env: 'STORE',
  description: 'where state lives: jetstream (durable, shared by replicas) or memory (in-process, no JetStream needed)',
  schema: { enum: ['jetstream', 'memory'], default: 'jetstream' },
};

export const kvReplicasSetting: SettingSpec = {
  key: 'kvReplicas',
  flags: '--kvReplicas <n>',
  aliases: ['--kv-replicas'],
  env: 'KV_REPLICAS',
  description: "copies JetStream keeps of the service's bucket (a bucket with fewer is raised at start)",
  defaultText: 'min(3, JetStream peers)',
  schema: { type: 'integer', minimum: 1, maximum: 5 },
};

export const readsSetting: SettingSpec = {
  key: 'reads',
  flags: '--reads <consistency>',
  env: 'READS',
  description:
    'how a read is sure to see every acknowledged write: announced (waits for the writes the replicas announce; asks the stream once a second) or confirmed (asks the stream on every read, shared by reads arriving together)',
  schema: { enum: ['confirmed', 'announced'], default: 'announced' },
};

/**
 * Opens a service's collection in the configured store; while tracing is on, each of its operations in a call is a
 * span of that call (TracedCollection).
 */
export async function openStore<T>(
  settings: StoreSettings,
  nc: NatsConnection,
  bucket: string,
  logger: Logger,
): Promise<Collection<T>> {
  const collection =
    settings.store === 'memory'
      ? createMemoryCollection<T>()
      : await openKvCollection<T>(nc, bucket, { replicas: settings.kvReplicas, reads: settings.reads, logger });
  const tracer = activeTracer();
  if (!tracer) return collection;
  return new TracedCollection(collection, tracer, bucket, settings.store === 'memory' ? 'memory' : 'nats');
}
