import type { Logger, NatsLink } from '@restbus/infra';

/** What a request message needs beside the body: headers, cookies, the endpoint descriptor. */
const ENVELOPE_ROOM = 64 * 1024;

/**
 * A request message must fit in one NATS message: once connected, the body limit is lowered below the server's
 * max_payload, with room for the envelope.
 */
export function keepBodyLimitWithinPayload(
  link: NatsLink,
  gateway: { setBodyLimit(limit: number): void },
  bodyLimit: number,
  logger: Logger,
): void {
  link.ready().then(
    (nc) => {
      const room = nc.info ? nc.info.max_payload - ENVELOPE_ROOM : Infinity;
      if (bodyLimit > room) {
        gateway.setBodyLimit(Math.max(0, room));
        logger.warn(
          { bodyLimit, maxPayload: nc.info?.max_payload, effective: room },
          'body limit lowered below the NATS max_payload',
        );
      }
    },
    () => undefined,
  );
}
