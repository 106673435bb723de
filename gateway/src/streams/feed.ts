import type { FanOut } from './fan-out';
import type { FeedMember } from './feed-member';

/** The SSE event name of the service's events. */
export const MESSAGE = 'message';
/**
 * How long a feed's start or a replay may wait for JetStream (the stream's info, a consumer made) before the client
 * is told 503.
 */
export const MAKE_WITHIN_MS = 20_000;

/** The events of one concrete subject (and stream), for all its clients: CoreFeed or JetStreamFeed. */
export interface Feed {
  readonly fanOut: FanOut;
  /** Resolves once the feed reads (its clients are then live); rejects when it cannot start. */
  readonly ready: Promise<void>;
  /** Replays what a resuming member missed, then makes it live. */
  resume(member: FeedMember, since: number): Promise<void>;
  /** Reads from new consumers, made from where the feed and each replay are (the connection was lost meanwhile). */
  renew(): void;
  stop(): void;
}
