import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import type { Logger } from '@restbus/infra';
import type { EventSources, StreamSpec } from './event-sources';
import { createHeldClient } from './held-client';
import type { SseWriter } from './sse-writer';
import type { StreamClient } from './stream-client';
import { createStreamEvent } from './stream-event';
import type { StreamRegistry } from './stream-registry';
import type { WsSender } from './ws-sender';

/** The service's reply to the forwarded GET, as far as opening a stream needs it. */
export interface ServiceAnswer {
  status: number;
  body?: Uint8Array;
  /**
   * The last sequence of the operation's JetStream stream that the snapshot (the body) includes, when the service
   * says so (SNAPSHOT_SEQUENCE_HEADER): the snapshot then carries it as its id, and the events up to it are not sent
   * again after it.
   */
  snapshotSeq?: number;
}

/** The reply header by which a service says up to which stream sequence its snapshot reaches. */
export const SNAPSHOT_SEQUENCE_HEADER = 'restbus-stream-seq';

export type StreamOutcome =
  /** The stream is open (or was, and ended): the response belongs to it. */
  | { opened: true }
  /** The service did not say yes: its reply is the answer, the caller sends it. */
  | { opened: false; reply: ServiceAnswer };

interface StreamRequest {
  spec: StreamSpec;
  /** Forwards the GET as an ordinary call (the route's forwarder); rejects as it does (RestbusError). */
  ask(): Promise<ServiceAnswer>;
  /** Told the client once the stream is open (the gateway ends the streams of operations a reload removed). */
  opened?(client: StreamClient): void;
}

export interface StreamOpener {
  /** SSE on `res` once the service answers 2xx. Throws RestbusError (full, store unavailable) before anything is sent. */
  openSse(request: StreamRequest & { res: ServerResponse; headers?: OutgoingHttpHeaders }): Promise<StreamOutcome>;
  /** Completes the upgrade (`accept`) only once the service answers 2xx; otherwise the caller answers the upgrade. */
  openWebSocket(request: StreamRequest & { accept(): Promise<WebSocket> }): Promise<StreamOutcome>;
}

export interface StreamOpenerOptions {
  sources: EventSources;
  registry: StreamRegistry;
  sse: SseWriter;
  ws?: WsSender;
  logger: Logger;
  /** Events kept while the service answers (default 1,000); past that the client gets a gap event. */
  heldEvents?: number;
}

const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/**
 * How a stream operation opens: a place in the registry, the service asked (it decides access and gives the first
 * state), then the stream. A new client is attached before the service is asked, held, so that no event falls
 * between the service's snapshot and the stream; a resuming client is attached after, its replay covering that.
 */
export function createStreamOpener(options: StreamOpenerOptions): StreamOpener {
  const { sources, registry } = options;
  const logger = options.logger.child({ component: 'streams' });
  const heldEvents = options.heldEvents ?? 1000;

  const open = async (request: StreamRequest, start: () => Promise<StreamClient>): Promise<StreamOutcome> => {
    const { spec } = request;
    const slot = registry.reserve();
    const held = spec.since === undefined ? createHeldClient({ maxEvents: heldEvents }) : undefined;
    let detach: (() => void) | undefined;
    let client: StreamClient | undefined;
    try {
      if (held) detach = await sources.attach(spec, held);
      const reply = await request.ask();
      if (!isSuccess(reply.status)) {
        detach?.();
        slot.release();
        return { opened: false, reply };
      }
      client = await start();
      if (held) {
        // The snapshot is the first state of a new client; a resuming one has its state and gets what it missed.
        const upTo = spec.stream === undefined ? undefined : reply.snapshotSeq;
        if (reply.body && reply.body.length > 0)
          client.deliver(createStreamEvent({ event: 'message', payload: reply.body, seq: upTo }));
        held.release(client, upTo);
      } else {
        detach = await sources.attach(spec, client);
      }
      slot.track(client, detach ?? (() => undefined));
      request.opened?.(client);
      return { opened: true };
    } catch (err) {
      detach?.();
      slot.release();
      if (!client) throw err;
      // The stream had begun: no error answer can follow its 200, it ends (and the client reconnects).
      logger.warn({ err, subject: spec.subject }, 'stream ended: its feed failed');
      client.end();
      return { opened: true };
    }
  };

  return {
    openSse: (request) => open(request, () => Promise.resolve(options.sse.open(request.res, request.headers))),
    openWebSocket(request) {
      const { ws } = options;
      if (!ws) throw new Error('createStreamOpener: no WebSocket sender given');
      return open(request, async () => ws.open(await request.accept()));
    },
  };
}
