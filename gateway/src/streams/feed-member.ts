import type { StreamClient } from './stream-client';
import type { StreamEvent } from './stream-event';

/** One client of a feed: what it got, and the live events it holds while its replay runs. */
export class FeedMember {
  /** The last sequence this client got: what the live feed and the replay both skip. */
  private last: number;
  /** Live events held while the client's replay runs; undefined once it is live. */
  private held: StreamEvent[] | undefined;
  /** Live events were dropped from `held` at its bound: the replay goes on to the stream's end again. */
  private overflowed = false;
  /** Stops the client's replay when it leaves in the middle of it. */
  private stopReplay: (() => void) | undefined;
  /** The client left: nothing more is replayed to it. */
  private left = false;

  /** With `since`, the client resumes after it: live events are held until its replay is through (goLive). */
  constructor(
    readonly client: StreamClient,
    since?: number,
  ) {
    this.last = since ?? 0;
    this.held = since === undefined ? undefined : [];
  }

  get lastSeq(): number {
    return this.last;
  }

  get gone(): boolean {
    return this.left;
  }

  get heldCount(): number {
    return this.held?.length ?? 0;
  }

  /** Hands one event to the client, once: a sequence it already has is skipped; a reset starts the count again. */
  deliver(event: StreamEvent): void {
    if (event.event === 'reset') this.last = 0;
    else if (event.seq !== undefined) {
      if (event.seq <= this.last) return;
      this.last = event.seq;
    }
    this.client.deliver(event);
  }

  /** A live event: delivered, or held while the replay runs (at most `holdMax` of the stream's). */
  offer(event: StreamEvent, holdMax: number): void {
    if (!this.held) this.deliver(event);
    else if (this.held.length < holdMax || event.seq === undefined) this.held.push(event);
    else {
      // The stream keeps it: the replay fetches it again, rather than this process keeping it for a slow client.
      this.held = this.held.filter((held) => held.seq === undefined);
      this.overflowed = true;
    }
  }

  /** True once for each time live events were dropped since the last call: the replay then goes on. */
  takeOverflow(): boolean {
    const overflowed = this.overflowed;
    this.overflowed = false;
    return overflowed;
  }

  /** The replay is over: what was held is delivered, and live events from now on. */
  goLive(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const event of held) this.deliver(event);
  }

  replayRuns(stop: () => void): void {
    this.stopReplay = stop;
  }

  replayEnded(): void {
    this.stopReplay = undefined;
  }

  /** The client left: its replay stops. */
  leave(): void {
    this.left = true;
    this.stopReplay?.();
  }
}
