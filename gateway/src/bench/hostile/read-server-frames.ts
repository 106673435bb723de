/** One frame a WebSocket server sent (servers do not mask). */
export interface ServerFrame {
  opcode: number;
  payload: Buffer;
}

/** The server's frames in `bytes`, as far as they arrived whole. */
export function readServerFrames(bytes: Buffer): ServerFrame[] {
  const frames: ServerFrame[] = [];
  let at = 0;
  while (at + 2 <= bytes.length) {
    let length = bytes[at + 1] & 0x7f;
    let start = at + 2;
    if (length === 126) {
      length = bytes.readUInt16BE(at + 2);
      start += 2;
    } else if (length === 127) {
      length = Number(bytes.readBigUInt64BE(at + 2));
      start += 8;
    }
    if (start + length > bytes.length) break;
    frames.push({ opcode: bytes[at] & 0x0f, payload: bytes.subarray(start, start + length) });
    at = start + length;
  }
  return frames;
}

/** The code of the first close frame the server sent (1005 when it gave none); undefined when it sent no close. */
export function findCloseCode(bytes: Buffer): number | undefined {
  const close = readServerFrames(bytes).find(({ opcode }) => opcode === 0x8);
  if (!close) return undefined;
  return close.payload.length >= 2 ? close.payload.readUInt16BE(0) : 1005;
}
