import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { extension } from 'mime-types';
import { isJsonMediaType, readErrorCode } from '@restbus/infra';

/** The largest body recorded, decoded: a larger answer is forwarded, not recorded, with a warning. */
export const RECORD_BODY_LIMIT = 1024 * 1024;

/** What a recorded answer's body becomes: a mock file, nothing (an empty body), or the reason it is not recorded. */
export type MockBody =
  | { kind: 'file'; extension: string; data: Buffer; json: boolean }
  | { kind: 'empty' }
  | { kind: 'refused'; reason: string };

const DECODERS: Readonly<Record<string, (data: Buffer, options: { maxOutputLength: number }) => Buffer>> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** The body as the server meant it: Content-Encoding undone, within RECORD_BODY_LIMIT. */
function decode(body: Buffer, encoding: string | undefined): Buffer | { reason: string } {
  const codings = (encoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  let data = body;
  // Applied in order, so undone from the last.
  for (const coding of codings.reverse()) {
    const decoder = Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined;
    if (!decoder) return { reason: `its Content-Encoding ${coding} is not one this recorder decodes` };
    try {
      data = decoder(data, { maxOutputLength: RECORD_BODY_LIMIT });
    } catch (err) {
      // Past maxOutputLength (a RangeError, code ERR_BUFFER_TOO_LARGE).
      if (readErrorCode(err) === 'ERR_BUFFER_TOO_LARGE') {
        return { reason: `the body has more than ${RECORD_BODY_LIMIT} bytes once decoded` };
      }
      return { reason: `the body does not decode as ${coding}` };
    }
  }
  return data;
}

/**
 * The mock file of a recorded body. JSON (by its Content-Type) is pretty-printed and must parse, else the mock
 * server could not send it; other types keep their bytes, in a file named by the type's usual extension (`.txt`,
 * `.html`, `.xml`; `.bin` when there is none). Never `.hbs`: the mock server would render that as a template.
 */
export function toMockBody(
  body: Buffer,
  contentType: string | undefined,
  contentEncoding: string | undefined,
): MockBody {
  const decoded = decode(body, contentEncoding);
  if (!Buffer.isBuffer(decoded)) return { kind: 'refused', reason: decoded.reason };
  if (decoded.length === 0) return { kind: 'empty' };
  if (decoded.length > RECORD_BODY_LIMIT) {
    return { kind: 'refused', reason: `the body has more than ${RECORD_BODY_LIMIT} bytes` };
  }
  const type = contentType?.split(';')[0].trim().toLowerCase() ?? '';
  if (type === 'text/event-stream') return { kind: 'refused', reason: 'an event stream is not a mock file' };
  if (isJsonMediaType(type)) {
    let value: unknown;
    try {
      value = JSON.parse(decoded.toString('utf8'));
    } catch {
      return { kind: 'refused', reason: `the body is not the JSON its Content-Type ${type} says` };
    }
    return { kind: 'file', extension: 'json', data: Buffer.from(`${JSON.stringify(value, null, 2)}\n`), json: true };
  }
  const known = type ? extension(type) : false;
  const name =
    known && known !== 'hbs' && known !== 'json' && /^[a-z0-9]+$/.test(known)
      ? known
      : type.startsWith('text/')
        ? 'txt'
        : 'bin';
  return { kind: 'file', extension: name, data: decoded, json: false };
}
