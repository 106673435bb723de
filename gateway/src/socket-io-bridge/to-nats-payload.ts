const EMPTY = new Uint8Array(0);

/**
 * The bytes a socket.io event's first argument is published as: a string as its UTF-8, binary (a Buffer, an
 * ArrayBuffer, a typed array) as its bytes, anything else as its JSON text (easer published an object as
 * "[object Object]"), nothing as an empty payload.
 */
export function toNatsPayload(value: unknown): Uint8Array {
  if (value === undefined) return EMPTY;
  if (typeof value === 'string') return Buffer.from(value);
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return Buffer.from(JSON.stringify(value) ?? '');
}
