import session from 'express-session';

type SessionData = session.SessionData;
type Done = (err?: unknown, value?: unknown) => void;

/**
 * express-session's MemoryStore never forgets a session until it expires (a day by default), so a client that
 * never returns its cookie grows it without bound. This store keeps at most `maxSessions` (least recently used
 * go first) for at most `ttlMs` since their last use.
 */
export class BoundedSessionStore extends session.Store {
  private readonly sessions = new Map<string, { data: string; expires: number }>();

  constructor(
    private readonly maxSessions = 10_000,
    private readonly ttlMs = 60 * 60 * 1000,
  ) {
    super();
  }

  get size(): number {
    return this.sessions.size;
  }

  override get(sid: string, done: (err: unknown, session?: SessionData | null) => void): void {
    const entry = this.sessions.get(sid);
    if (!entry || entry.expires <= Date.now()) {
      this.sessions.delete(sid);
      done(null, null);
      return;
    }
    // Re-inserting moves the entry to the end of the Map's order: the most recently used.
    this.sessions.delete(sid);
    this.sessions.set(sid, entry);
    done(null, JSON.parse(entry.data) as SessionData);
  }

  override set(sid: string, data: SessionData, done?: Done): void {
    this.sessions.delete(sid);
    this.sessions.set(sid, { data: JSON.stringify(data), expires: Date.now() + this.ttlMs });
    // Deleting while iterating is safe for a Map: the oldest (first inserted) go first.
    for (const oldest of this.sessions.keys()) {
      if (this.sessions.size <= this.maxSessions) break;
      this.sessions.delete(oldest);
    }
    done?.();
  }

  override touch(sid: string, _data: SessionData, done?: Done): void {
    const entry = this.sessions.get(sid);
    if (entry) entry.expires = Date.now() + this.ttlMs;
    done?.();
  }

  override destroy(sid: string, done?: Done): void {
    this.sessions.delete(sid);
    done?.();
  }

  override length(done: (err: unknown, length?: number) => void): void {
    done(null, this.sessions.size);
  }

  override clear(done?: Done): void {
    this.sessions.clear();
    done?.();
  }
}
