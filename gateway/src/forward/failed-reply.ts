import type { Msg } from 'nats';
import { SERVICE_ERROR_CODE_HEADER } from '@restbus/infra';

/** The server's own empty 503 reply: nobody is subscribed to the subject. */
export function isNoResponder(msg: Msg): boolean {
  return msg.data.length === 0 && msg.headers?.code === 503;
}

/** A reply flagged with a 5xx service error code: the service failed this time, another copy may not. */
export function isServerError(msg: Msg): boolean {
  return msg.headers?.get(SERVICE_ERROR_CODE_HEADER).startsWith('5') ?? false;
}
