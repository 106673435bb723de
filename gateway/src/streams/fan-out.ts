import type { FeedMember } from './feed-member';
import type { StreamEvent } from './stream-event';

/** The clients of one feed: each event is handed to every one of them (the same event, encoded once). */
export class FanOut {
  private readonly members = new Set<FeedMember>();

  /** `holdMax`: the most live events one resuming member holds (FeedMember.offer). */
  constructor(private readonly holdMax: number) {}

  get size(): number {
    return this.members.size;
  }

  add(member: FeedMember): void {
    this.members.add(member);
  }

  remove(member: FeedMember): void {
    this.members.delete(member);
  }

  send(event: StreamEvent): void {
    for (const member of this.members) member.offer(event, this.holdMax);
  }

  /** Live events held for members whose replay runs. */
  countHeld(): number {
    let count = 0;
    for (const member of this.members) count += member.heldCount;
    return count;
  }
}
