import type { ConnectionOptions } from 'nats';
import type { Logger } from 'pino';
import { toNatsServersAndAuth } from './nats-connect-options';
import { toNatsSecurityOptions } from './to-nats-security-options';
import type { NatsLinkOptions } from './nats-link';

const RECONNECT_MS = 1000;
// A server we can no longer reach (a partition: no TCP error, nothing comes back) is left once this many pings in a
// row, one every PING_MS, went unanswered: within about 4 s, not nats.js' default 2 min × 2, while requests sent into
// it are lost. A pong later than 2 s on a live server costs a needless reconnect, which loses nothing.
const PING_MS = 1000;
const MAX_PINGS_OUT = 2;

export interface LinkConnectOptions {
  /** The server URLs without credentials: what may be logged. */
  servers: string[];
  /** What every connection of the link is made with, beside the servers it tries. */
  connectOptions: Omit<ConnectionOptions, 'servers'>;
}

/** The nats.js connect options of a NatsLink's connections; `logger` hears of a stale credentials file. */
export function toLinkConnectOptions(options: NatsLinkOptions, logger: Logger): LinkConnectOptions {
  // `-n a,b,c` names a cluster; credentials come out of the URLs into connect options, and out of every log line.
  const { servers, ...auth } = toNatsServersAndAuth(options.servers);
  const security = toNatsSecurityOptions(options, servers, (problem) =>
    logger.warn(
      { credsFile: options.credsFile, problem },
      `the NATS credentials file ${options.credsFile} ${problem}; reconnecting with the one read before`,
    ),
  );
  const connectOptions = {
    ...auth,
    ...security,
    ...(options.inboxPrefix ? { inboxPrefix: options.inboxPrefix } : {}),
    name: options.name,
    // Once connected, reconnect forever.
    maxReconnectAttempts: -1,
    reconnectTimeWait: RECONNECT_MS,
    // nats.js' own delay plus up to 100 ms of jitter (1 s with TLS).
    reconnectJitter: 100,
    reconnectJitterTLS: 1000,
    pingInterval: PING_MS,
    maxPingOut: MAX_PINGS_OUT,
    timeout: 2000,
    // Async stack traces cost about a fifth of the request/reply throughput and we never print them.
    noAsyncTraces: true,
  };
  return { servers, connectOptions };
}
