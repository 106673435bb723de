import { Counter, Gauge, type Registry } from 'prom-client';

export interface SocketMetrics {
  /** A NATS message sent on to the socket.io clients (one broadcast, whatever the number of clients). */
  toClients(): void;
  /** A client's event published to NATS. */
  toNats(): void;
  /** A client's event whose name is no -o subject: not published, not acknowledged. */
  refused(): void;
  /** A client disconnected because more than the buffer limit was queued for it. */
  cut(): void;
}

/** The WebSocket gateway's metrics, on the gateway's registry (`/-/metrics`). */
export function createSocketMetrics(registry: Registry, clients: () => number): SocketMetrics {
  new Gauge({
    name: 'restbus_gateway_websocket_clients',
    help: 'socket.io clients connected (-w)',
    registers: [registry],
    collect() {
      this.set(clients());
    },
  });
  const messages = new Counter({
    name: 'restbus_gateway_websocket_messages_total',
    help: 'Messages relayed by the WebSocket gateway (-w): NATS to the clients (one per broadcast), clients to NATS',
    labelNames: ['direction'] as const,
    registers: [registry],
  });
  const refused = new Counter({
    name: 'restbus_gateway_websocket_refused_events_total',
    help: 'socket.io events whose name is no -o subject: neither published nor acknowledged',
    registers: [registry],
  });
  const cut = new Counter({
    name: 'restbus_gateway_websocket_clients_cut_total',
    help: 'socket.io clients disconnected because more than --wsBufferLimit bytes were queued for them',
    registers: [registry],
  });
  const toClients = messages.labels('to_clients');
  const toNats = messages.labels('to_nats');
  return {
    toClients: () => toClients.inc(),
    toNats: () => toNats.inc(),
    refused: () => refused.inc(),
    cut: () => cut.inc(),
  };
}
