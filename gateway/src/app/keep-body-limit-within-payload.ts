import type { Logger, NatsLink } from '@restbus/infra';
import { DEFAULT_BODY_LIMIT } from '../config';

/** What a request message needs beside the body: headers, cookies, the endpoint descriptor. */
const ENVELOPE_ROOM = 64 * 1024;

/**
 * A request message must fit in one NATS message: once connected, the body limit is lowered below the server's
 * max_payload, with room for the envelope. The default limit always is on a server with NATS's default max_payload
 * (both 1 MiB): said at `info`, since nobody asked for more; a limit someone set above what the server takes is a
 * `warn`.
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
        logger[bodyLimit === DEFAULT_BODY_LIMIT ? 'info' : 'warn'](
          { bodyLimit, maxPayload: nc.info?.max_payload, effective: room },
          'body limit lowered below the NATS max_payload',
        );
      }
    },
    () => undefined,
  );
}
