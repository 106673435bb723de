import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import type { NatsSecurity } from './to-nats-security-options';

export interface NatsLinkOptions extends NatsSecurity {
  servers: string | string[];
  /** Connection name shown by the server's monitoring. */
  name: string;
  /** Prefix of the reply subjects this connection makes (nats.js' default `_INBOX` when absent). */
  inboxPrefix?: string;
  logger: Logger;
}

/** A NATS connection that is made in the background and retried forever, and says whether it is up. */
export interface NatsLink {
  /**
   * Resolves with the connection once the first connect succeeded; rejects when drained before that. It is the
   * same object for the link's life, also when the link moves to another server (see createMovingConnection).
   */
  ready(): Promise<NatsConnection>;
  /** The connection (the one ready() gives), once there is one. */
  current(): NatsConnection | undefined;
  /** True while connected (false before the first connect, while reconnecting and after close). */
  isConnected(): boolean;
  /**
   * Resolves true once connected, waiting while the link moves to another server: at most `ms` counted from when
   * the connection was lost. False at once when it was lost longer ago (an outage, not a move), before the first
   * connect, and after close.
   */
  waitForConnection(ms: number): Promise<boolean>;
  /** Drains subscriptions and pending publishes, then closes; safe to call before the connection exists. */
  drain(): Promise<void>;
}
