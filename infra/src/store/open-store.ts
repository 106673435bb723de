import type { NatsConnection } from 'nats';
import type { SettingSpec } from '../config/load-config';
import { createMemoryCollection, type Collection } from './collection';
import { openKvCollection } from './kv-collection';

export type StoreKind = 'jetstream' | 'memory';

export const storeSetting: SettingSpec = {
  key: 'store',
  flags: '--store <kind>',
  env: 'STORE',
  description: 'where state lives: jetstream (durable, shared by replicas) or memory (in-process, no JetStream needed)',
  schema: { enum: ['jetstream', 'memory'], default: 'jetstream' },
};

/** Opens a service's collection in the configured store. */
export function openStore<T>(kind: StoreKind, nc: NatsConnection, bucket: string): Promise<Collection<T>> {
  return kind === 'memory' ? Promise.resolve(createMemoryCollection<T>()) : openKvCollection<T>(nc, bucket);
}
