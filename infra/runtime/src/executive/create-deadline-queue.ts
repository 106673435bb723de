/** What a handler's deadline is: when it falls due (performance.now() time), and how to take it back. */
export interface Deadline {
  readonly at: number;
  /** The handler answered in time: its expiry will not be called. */
  cancel(): void;
}

export interface DeadlineQueue {
  /** Calls `onExpired` once, `ms` from now, unless cancelled before. */
  add(onExpired: () => void): Deadline;
}

interface Entry extends Deadline {
  onExpired: (() => void) | undefined;
}

/**
 * Deadlines of one length for every request of a handler, on one timer. A timer per request costs more than the
 * handler at one request at a time: Node drops its timer list when the last timer of a duration is cleared and
 * makes it, and arms the native timer, anew for the next. All deadlines here are `ms` long, so they fall due in
 * the order they were added, and the queue is first in, first out; the one timer is armed for the oldest.
 */
export function createDeadlineQueue(ms: number): DeadlineQueue {
  let entries: Entry[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | undefined;

  /** Skips the answered entries at the front; forgets them all once none is pending. */
  function dropAnswered(): void {
    while (head < entries.length && entries[head].onExpired === undefined) head++;
    if (head === entries.length) {
      entries = [];
      head = 0;
    } else if (head > 1024 && head * 2 > entries.length) {
      entries = entries.slice(head);
      head = 0;
    }
  }

  function arm(now: number): void {
    // Node may wake a little before performance.now() says the time has come: never arm for less than 1 ms.
    timer = setTimeout(expire, Math.max(1, Math.ceil(entries[head].at - now)));
    // A pending request does not keep the process alive on its own; its connection does.
    timer.unref();
  }

  function expire(): void {
    timer = undefined;
    const now = performance.now();
    while (head < entries.length && entries[head].at <= now) {
      const entry = entries[head++];
      const onExpired = entry.onExpired;
      entry.onExpired = undefined;
      onExpired?.();
    }
    dropAnswered();
    if (head < entries.length) arm(now);
  }

  return {
    add(onExpired) {
      const now = performance.now();
      const entry: Entry = {
        at: now + ms,
        onExpired,
        cancel() {
          entry.onExpired = undefined;
          dropAnswered();
        },
      };
      entries.push(entry);
      // Armed already for an older deadline, which falls due first: the timer then moves on to this one.
      if (timer === undefined) arm(now);
      return entry;
    },
  };
}
