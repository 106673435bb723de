import { RestbusError } from '@restbus/infra';
import { MAX_STREAM_SUBJECT_BYTES } from '@restbus/openapi';

/** nats-server has no limit of its own below its max payload; a subject token past this is a mistake, not an id. */
const MAX_TOKEN_BYTES = 256;
const PLACEHOLDER = /\{([^{}]+)\}/g;
// Separators and wildcards, whitespace and control characters: anything that would make the value more or less
// than one token of the subject.
// eslint-disable-next-line no-control-regex
const NOT_IN_TOKEN = /[.*>\s\u0000-\u001f\u007f]/;

function refuse(name: string, why: string): never {
  const message = `path parameter ${JSON.stringify(name)} ${why}`;
  throw new RestbusError('REQUEST_INVALID', message, {
    details: { problems: [{ location: `path.${name}`, message }] },
  });
}

/**
 * The concrete subject of a stream: `{name}` placeholders of the declared template filled with the path parameters.
 * A value that is not exactly one valid NATS token (which would let a client listen to another subject, or to a
 * wildcard) is a 400 REQUEST_INVALID naming the parameter; so are values that together make the subject longer than
 * MAX_STREAM_SUBJECT_BYTES (the longest one named), which nats-server would answer by dropping the gateway's
 * connection, every client's streams and calls with it.
 */
export function expandStreamSubject(template: string, pathParams: Readonly<Record<string, string>>): string {
  let longest = { name: '', bytes: 0 };
  const subject = template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = pathParams[name];
    if (value === undefined) refuse(name, 'is missing');
    if (value === '') refuse(name, 'is empty');
    if (NOT_IN_TOKEN.test(value)) {
      refuse(name, 'may not contain ".", "*", ">", whitespace or control characters');
    }
    const bytes = Buffer.byteLength(value);
    if (bytes > MAX_TOKEN_BYTES) refuse(name, `is longer than ${MAX_TOKEN_BYTES} bytes`);
    if (bytes > longest.bytes) longest = { name, bytes };
    return value;
  });
  const bytes = Buffer.byteLength(subject);
  if (bytes > MAX_STREAM_SUBJECT_BYTES) {
    refuse(
      longest.name,
      `makes the stream's subject ${bytes} bytes with the other parameters, more than the ${MAX_STREAM_SUBJECT_BYTES} a NATS subject of the gateway may have`,
    );
  }
  return subject;
}
