import type { Server } from 'node:http';
import type { Logger, NatsLink } from '@restbus/infra';
import type { GatewayConfig } from '../config';
import type { GatewayMetrics } from '../observability/create-metrics';
import type { SocketGateway } from '../socket-io-bridge/start-socket-gateway';
import { readSubjectList } from '../socket-io-bridge/subject-list';
import { readCorsOrigins } from './read-cors-origins';

// socket.io loads with -w only, not at every start.
const loadSocketGateway = (): typeof import('../socket-io-bridge/start-socket-gateway') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the mode that uses it
  require('../socket-io-bridge/start-socket-gateway') as typeof import('../socket-io-bridge/start-socket-gateway');

/** The running bridge of -w, and the subjects it relays. */
export interface SocketBridge {
  bridge: SocketGateway;
  subjects: { inbound: string[]; outbound: string[] };
}

/**
 * easer's -w: a socket.io server on the gateway's port relaying the -i and -o subjects; undefined without -w (and a
 * warning when -i or -o were given for nothing) or without a NATS link.
 */
export function startSocketBridge(
  config: Readonly<GatewayConfig>,
  server: Server,
  link: NatsLink | undefined,
  metrics: GatewayMetrics,
  logger: Logger,
): SocketBridge | undefined {
  const inbound = readSubjectList(config.inbound);
  const outbound = readSubjectList(config.outbound);
  if (!config.useWebsocket && inbound.length + outbound.length > 0) {
    logger.warn(
      { inbound, outbound },
      '-i and -o are used only with -w (--useWebsocket, EASER_USE_WEBSOCKET=true): no WebSocket gateway is started',
    );
  }
  if (!link || !config.useWebsocket) return undefined;
  const bridge = loadSocketGateway().startSocketGateway({
    server,
    link,
    inbound,
    outbound,
    // At least room for an event's name: a body limit of 0 must not mean socket.io's "no limit".
    maxMessageBytes: Math.max(config.bodyLimit, 1024),
    bufferLimit: config.wsBufferLimit ?? 4 * 1024 * 1024,
    corsOrigins: readCorsOrigins(config.cors),
    registry: metrics.registry,
    logger,
  });
  return { bridge, subjects: { inbound, outbound } };
}
