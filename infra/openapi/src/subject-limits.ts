import { escapeControlCharacters } from './diagnostic';

/**
 * What a NATS subject of the gateway may hold. nats-server closes a client's connection (`-ERR 'Maximum Control
 * Line Exceeded'`) when a protocol line is longer than its `max_control_line`, 4096 bytes by default; the line that
 * sends a call is `HPUB <subject> <reply subject> <header bytes> <total bytes>\r\n`, so the subject gets what the
 * rest leaves: 50 bytes for the verb, spaces, sizes and line end, a reply subject of the inbox prefix (at most
 * MAX_SUBJECT_PREFIX_BYTES) and at most 128 bytes of tokens, and a margin. A server configured with a smaller
 * `max_control_line` needs shorter paths than these bounds let through.
 */
export const NATS_MAX_CONTROL_LINE = 4096;
/** The longest subject of a route: `<topicPrefix>.<method>_<path template>`, in bytes. */
export const MAX_SUBJECT_BYTES = 3584;
/** The longest topic prefix or inbox prefix, in bytes. */
export const MAX_SUBJECT_PREFIX_BYTES = 256;
/** nats-server's bound on a JetStream stream name (JSMaxNameLen), in bytes. */
export const MAX_STREAM_NAME_BYTES = 255;
/**
 * What goes before a JetStream stream's filter subject in the subject of the request that makes its consumer:
 * `$JS.API.CONSUMER.CREATE.<stream>.<consumer>.`, with the longest stream name and nats.js' 22-byte consumer names.
 */
const CONSUMER_CREATE_PREFIX_BYTES = '$JS.API.CONSUMER.CREATE.'.length + MAX_STREAM_NAME_BYTES + 1 + 22 + 1;
/**
 * The longest subject of an event stream (`x-restbus-stream`), its placeholders filled, in bytes: a core stream's is
 * a SUB line, a JetStream stream's is sent inside the subject that makes its consumer, so both get what a route's
 * subject gets less that prefix (3,281 bytes).
 */
export const MAX_STREAM_SUBJECT_BYTES = MAX_SUBJECT_BYTES - CONSUMER_CREATE_PREFIX_BYTES;

/**
 * Control characters (C0, DEL, C1): a CR or LF ends the protocol line and the rest is read as another command, a
 * tab splits it; the others pass a server but no subscriber could write them in a subject it subscribes to.
 */
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `text` cannot be part of a subject because of a control character (named escaped), or undefined. */
export function findControlCharacter(text: string): string | undefined {
  const control = CONTROL.exec(text)?.[0];
  return control === undefined ? undefined : `the control character ${escapeControlCharacters(control)}`;
}

/** Why a subject is too long to send, or undefined; `what` names it for a person ("the subject of GET /pets"). */
export function checkSubjectLength(subject: string, what: string): string | undefined {
  const bytes = Buffer.byteLength(subject);
  if (bytes <= MAX_SUBJECT_BYTES) return undefined;
  return (
    `${what} would have ${bytes} bytes, more than the limit of ${MAX_SUBJECT_BYTES}: nats-server drops a connection ` +
    `whose protocol line passes its max_control_line (${NATS_MAX_CONTROL_LINE} bytes by default), and the line ` +
    'that sends a call holds the reply subject too'
  );
}
