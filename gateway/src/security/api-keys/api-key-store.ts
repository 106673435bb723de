import type { KV, KvEntry, QueuedIterator } from 'nats';
import { openBucket, type Logger, type NatsLink } from '@restbus/infra';
import { hashApiKey, readApiKeyRecord, type ApiKeyRecord } from './api-key-record';

export interface ApiKeyStoreOptions {
  /** The gateway's NATS link, asked for when the watch starts: a load is compiled before the link is made. */
  link: () => NatsLink;
  bucket: string;
  logger: Logger;
  /** After the watch of the bucket ends (a connection lost, the bucket deleted), it is opened again this much later. */
  retryMs?: number;
}

/**
 * The API keys every gateway reads: a NATS key-value bucket of hashed keys (hashApiKey), watched, so that a key added
 * or revoked with `restbus-gateway keys` takes effect on every gateway as soon as the bucket tells it (well within a
 * second). While the bucket cannot be read, the keys last read stay in use; before they were ever read, a key cannot
 * be checked (`lookup` says `unavailable`).
 */
export class ApiKeyStore {
  private keys = new Map<string, ApiKeyRecord>();
  private loaded = false;
  private running = false;
  private watch?: QueuedIterator<KvEntry>;
  private retryTimer?: NodeJS.Timeout;
  private readonly skipped = new Set<string>();

  constructor(private readonly options: ApiKeyStoreOptions) {}

  /** Whether the bucket was read once: until then no key can be checked. */
  get isLoaded(): boolean {
    return this.loaded;
  }

  get size(): number {
    return this.keys.size;
  }

  /** Starts watching the bucket (once; later calls do nothing). */
  start(): void {
    if (this.running) return;
    this.running = true;
    void this.follow();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.retryTimer);
    this.watch?.stop();
  }

  /** The record of a key, undefined for a key nobody created (or one revoked), `unavailable` before the first read. */
  lookup(key: string): ApiKeyRecord | 'unavailable' | undefined {
    if (!this.loaded) return 'unavailable';
    return this.keys.get(hashApiKey(key));
  }

  private async follow(): Promise<void> {
    const { link, bucket, logger } = this.options;
    try {
      const nc = await link().ready();
      const kv: KV = await openBucket(nc, bucket, { logger });
      if (!this.running) return;
      // The first pass fills a fresh map, swapped in once the bucket's current values are all read: a key revoked
      // while the watch was away is gone then, not kept from before.
      const fresh = new Map<string, ApiKeyRecord>();
      let current = fresh;
      const watch = await kv.watch({
        initializedFn: () => {
          this.keys = fresh;
          current = this.keys;
          this.loaded = true;
          logger.info({ bucket, keys: fresh.size }, 'API keys read');
        },
      });
      // Stopped while the watch was being made: it ends now, not with the process.
      if (!this.running) {
        watch.stop();
        return;
      }
      this.watch = watch;
      for await (const entry of watch) {
        if (entry.operation !== 'PUT') {
          current.delete(entry.key);
          continue;
        }
        const record = readApiKeyRecord(entry.value);
        if (record) current.set(entry.key, record);
        else {
          current.delete(entry.key);
          if (!this.skipped.has(entry.key))
            logger.warn(
              { bucket, entry: entry.key.slice(0, 12) },
              'a value in the API key bucket is no key record: skipped',
            );
          this.skipped.add(entry.key);
        }
      }
    } catch (err) {
      if (this.running)
        logger.warn({ err, bucket }, 'the API key bucket cannot be read just now; the keys read last stay in use');
    }
    if (!this.running) return;
    this.retryTimer = setTimeout(() => void this.follow(), this.options.retryMs ?? 1000);
    this.retryTimer.unref();
  }
}
