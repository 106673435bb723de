import { randomUUID } from 'node:crypto';
import type { Subscription } from 'nats';
import type { Logger, NatsLink } from '@restbus/infra';

/** The subject gateways say they are there on: outside any service's topic prefix, as `_INBOX` is. */
export const CENSUS_SUBJECT = '_RESTBUS.gateways';
/** Ids heard at most: a program other than a gateway that sends made-up ones cannot grow the census past this. */
const MAX_IDS = 256;
const ID = /^[A-Za-z0-9-]{1,64}$/;

export interface GatewayCensusOptions {
  link: () => NatsLink;
  /** How often each gateway says it is there (ms); one not heard for three of these is gone. */
  intervalMs: number;
  logger: Logger;
  now?: () => number;
}

/**
 * How many gateways share the rate limits: each says it is there every `intervalMs` on CENSUS_SUBJECT and counts
 * the others it heard from within three intervals. While NATS is away nobody is heard, and the last count is kept:
 * a gateway cut off still takes its share of a limit, not all of it.
 */
export class GatewayCensus {
  readonly id = randomUUID();
  private readonly heard = new Map<string, number>();
  private last = 1;
  private timer?: NodeJS.Timeout;
  private subscription?: Subscription;
  private running = false;
  private readonly now: () => number;

  constructor(private readonly options: GatewayCensusOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Gateways heard lately, this one included; the last count while NATS is away. */
  get gateways(): number {
    return this.last;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.join();
  }

  stop(): void {
    this.running = false;
    clearInterval(this.timer);
    this.subscription?.unsubscribe();
  }

  private async join(): Promise<void> {
    const { link, intervalMs, logger } = this.options;
    try {
      const nc = await link().ready();
      if (!this.running) return;
      this.subscription = nc.subscribe(CENSUS_SUBJECT, {
        callback: (err, msg) => {
          if (err) return;
          const id = new TextDecoder().decode(msg.data);
          if (!ID.test(id) || (this.heard.size >= MAX_IDS && !this.heard.has(id))) return;
          this.heard.set(id, this.now());
        },
      });
      const tick = (): void => {
        if (!link().isConnected()) return;
        nc.publish(CENSUS_SUBJECT, this.id);
        this.heard.set(this.id, this.now());
        const since = this.now() - 3 * intervalMs;
        for (const [id, at] of this.heard) if (at < since) this.heard.delete(id);
        this.last = Math.max(1, this.heard.size);
      };
      tick();
      this.timer = setInterval(tick, intervalMs);
      this.timer.unref();
    } catch (err) {
      if (this.running) logger.warn({ err }, 'the gateways sharing the rate limits cannot be counted');
    }
  }
}
