import type { NatsConnection, Status, Subscription, SubscriptionOptions } from 'nats';

/**
 * Why the link moved: its server announced lame duck mode (it still delivers what is on its way), or it lost its
 * routes to most of its peers (`cut-off`: what was sent through it to the others may never arrive).
 */
export type MoveReason = 'lame-duck' | 'cut-off';

/** Told that the connection moved to another server; what it returns is awaited before the old one is drained. */
export type MoveListener = (reason: MoveReason) => void | Promise<void>;

const movesOf = new WeakMap<NatsConnection, Set<MoveListener>>();

/**
 * Calls `listener` each time `nc` (a NatsLink's connection) moves to another server, after its subscriptions
 * moved and before the old connection is drained, for what does not move by itself (JetStream's subscriptions).
 * Returns the function that stops it; for a connection no link made, which never moves, it does nothing.
 */
export function onConnectionMove(nc: NatsConnection, listener: MoveListener): () => void {
  const listeners = movesOf.get(nc);
  listeners?.add(listener);
  return () => listeners?.delete(listener);
}

/** The one connection a process holds, which moves to another server underneath when the link asks. */
export interface MovingConnection {
  /** What the process uses: a NatsConnection that always works on the connection the link has now. */
  readonly connection: NatsConnection;
  /**
   * Works on `next` from now on: subscriptions with a callback are made on `next` too (they stay on the old one
   * until it is drained, so a message routed to either is delivered), publishes and requests go out on `next`.
   * Resolves once the onConnectionMove listeners are done.
   */
  moveTo(next: NatsConnection, reason: MoveReason): Promise<void>;
  /** Passes on a status of the connection the link has now. */
  pushStatus(status: Status): void;
  /** The link has closed for good: status iterators end and closed() resolves (with `err` when it failed). */
  end(err?: Error): void;
}

type StatusIterator = AsyncIterableIterator<Status> & { stop(): void };

/**
 * A NatsConnection whose every call goes to the link's current connection: nats.js' own methods run with the
 * moving connection as `this`, so what they build on it (a JetStream client or manager, a KV view, a service of
 * the services API) reaches the current connection on each call, not the one there was when it was made.
 *
 * What is bound to one connection is handled here: a subscription with a callback is made again on the next
 * connection (one that reads messages by iterating is not, and ends when its connection drains), `closed()`
 * resolves and `status()` ends only when the link closes, and drain() and close() close the link.
 */
export function createMovingConnection(
  first: NatsConnection,
  closeLink: { drain(): Promise<void>; close(): Promise<void> },
): MovingConnection {
  let current = first;
  const followers = new Set<(next: NatsConnection) => void>();
  const statusQueues = new Set<{ push(status: Status | undefined): void }>();
  let settle!: { resolve: (err: Error | undefined) => void };
  const closed = new Promise<Error | void>((resolve) => (settle = { resolve }));
  let ended = false;

  function subscribe(subject: string, opts?: SubscriptionOptions): Subscription {
    // nats.js ends a subscription with `max` on its own, and an iterated one has its reader on this very object.
    if (!opts?.callback || opts.max !== undefined) return current.subscribe(subject, opts);
    let sub = current.subscribe(subject, opts);
    let done = false;
    let finish!: (err?: unknown) => void;
    const subClosed = new Promise<void>((resolve, reject) => {
      finish = (err) => {
        if (done) return;
        done = true;
        followers.delete(follow);
        if (err) reject(err);
        else resolve();
      };
    });
    subClosed.catch(() => undefined);
    // The subscription ends when the one on the current connection ends; the old one's end after a move is not it.
    const watch = (real: Subscription): void => {
      real.closed.then(
        () => real === sub && finish(),
        (err: unknown) => real === sub && finish(err),
      );
    };
    const follow = (next: NatsConnection): void => {
      if (done) return;
      sub = next.subscribe(subject, opts);
      watch(sub);
    };
    watch(sub);
    followers.add(follow);
    const own: Partial<Subscription> = {
      closed: subClosed,
      unsubscribe(max?: number) {
        followers.delete(follow);
        sub.unsubscribe(max);
      },
      drain() {
        followers.delete(follow);
        return sub.drain();
      },
    };
    return new Proxy({} as Subscription, {
      get(_target, prop) {
        if (Object.prototype.hasOwnProperty.call(own, prop)) return own[prop as keyof Subscription];
        const value: unknown = Reflect.get(sub, prop, sub);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(sub) : value;
      },
    });
  }

  function status(): StatusIterator {
    const queued: Status[] = [];
    let wake: ((result: IteratorResult<Status>) => void) | undefined;
    let stopped = ended;
    const queue = {
      push(item: Status | undefined) {
        if (item === undefined) {
          stopped = true;
          statusQueues.delete(queue);
          wake?.({ value: undefined, done: true });
        } else if (wake) wake({ value: item, done: false });
        else queued.push(item);
        wake = undefined;
      },
    };
    if (!stopped) statusQueues.add(queue);
    const iterator: StatusIterator = {
      next() {
        const item = queued.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (stopped) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (wake = resolve));
      },
      return() {
        queue.push(undefined);
        return Promise.resolve({ value: undefined, done: true });
      },
      stop: () => queue.push(undefined),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  const closedLink = (): Promise<Error | void> => closed;
  /**
   * A view of the current connection. Built on the connection's prototype, so nats.js' getters (services, info)
   * run with it as `this`; `_services` is kept on it, so the services API adds its services here, not on the first.
   */
  function view(overrides: Record<string | symbol, unknown>): NatsConnection {
    const target = Object.create(Object.getPrototypeOf(first) as object) as Record<string, unknown>;
    target._services = undefined;
    return new Proxy(target, {
      get(own, prop, receiver) {
        if (Object.prototype.hasOwnProperty.call(overrides, prop)) return overrides[prop];
        if (Object.prototype.hasOwnProperty.call(own, prop)) return own[prop as string];
        return Reflect.get(current, prop, receiver);
      },
    }) as unknown as NatsConnection;
  }
  const common = {
    status,
    closed: closedLink,
    drain: () => closeLink.drain(),
    close: () => closeLink.close(),
  };
  // JetStream's own subscriptions (a KV watch, a consumer) carry state nats.js keeps on the subscription object:
  // they stay on the connection they were made on and end when it is drained; their owner starts them afresh on
  // the next one (onConnectionMove). Their requests go out on the current connection.
  const pinned = view({
    ...common,
    subscribe: (subject: string, opts?: SubscriptionOptions) => current.subscribe(subject, opts),
  });
  const onPinned =
    (method: 'jetstream' | 'jetstreamManager') =>
    (...args: unknown[]): unknown =>
      (Reflect.get(current, method, pinned) as (...a: unknown[]) => unknown).apply(pinned, args);
  const connection = view({
    ...common,
    subscribe,
    jetstream: onPinned('jetstream'),
    jetstreamManager: onPinned('jetstreamManager'),
  });
  const moveListeners = new Set<MoveListener>();
  movesOf.set(connection, moveListeners);

  return {
    connection,
    async moveTo(next, reason) {
      current = next;
      for (const follow of [...followers]) follow(next);
      await Promise.allSettled([...moveListeners].map(async (listener) => listener(reason)));
    },
    pushStatus(item) {
      for (const queue of statusQueues) queue.push(item);
    },
    end(err) {
      if (ended) return;
      ended = true;
      for (const queue of [...statusQueues]) queue.push(undefined);
      settle.resolve(err);
    },
  };
}
