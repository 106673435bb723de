/** One thing a client sends on an open WebSocket, and how a server that follows RFC 6455 answers it. */
export interface HostileFrame {
  kind: string;
  bytes: Buffer;
  /** The code of the close frame the server sends; none when it keeps the connection or drops it without one. */
  expectedClose?: number;
  /** The client ends its side after the bytes (a frame cut short by FIN). */
  endAfter?: boolean;
}

export interface FrameSpec {
  opcode: number;
  payload?: Buffer;
  fin?: boolean;
  /** RSV1-3 as the header's bits 0x40, 0x20, 0x10. */
  rsv?: number;
  /** Clients must mask; false sends the payload as is. */
  mask?: boolean;
  /** The length the header claims, when it is not the payload's (the payload then is not sent). */
  claimedLength?: bigint;
  /** The length field's form; the shortest one that fits when absent. */
  lengthForm?: 7 | 16 | 64;
}

const MASK_KEY = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);

/** Encodes one frame by hand, as no WebSocket library would let a client write a wrong one. */
export function encodeFrame(spec: FrameSpec): Buffer {
  const payload = spec.payload ?? Buffer.alloc(0);
  const length = spec.claimedLength ?? BigInt(payload.length);
  const form = spec.lengthForm ?? (length < 126n ? 7 : length < 65_536n ? 16 : 64);
  const masked = spec.mask !== false;
  const first = ((spec.fin ?? true) ? 0x80 : 0) | (spec.rsv ?? 0) | spec.opcode;
  const maskBit = masked ? 0x80 : 0;
  let header: Buffer;
  if (form === 7) {
    header = Buffer.from([first, maskBit | Number(length)]);
  } else if (form === 16) {
    header = Buffer.from([first, maskBit | 126, 0, 0]);
    header.writeUInt16BE(Number(length), 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = maskBit | 127;
    header.writeBigUInt64BE(length, 2);
  }
  if (spec.claimedLength !== undefined) return Buffer.concat([header, masked ? MASK_KEY : Buffer.alloc(0)]);
  if (!masked) return Buffer.concat([header, payload]);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= MASK_KEY[i % 4];
  return Buffer.concat([header, MASK_KEY, body]);
}

const TEXT = 0x1;
const BINARY = 0x2;
const CONTINUATION = 0x0;
const CLOSE = 0x8;
const PING = 0x9;

const closePayload = (code: number, reason: Buffer = Buffer.alloc(0)): Buffer => {
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(code);
  return Buffer.concat([payload, reason]);
};
const repeat = (frame: Buffer, times: number): Buffer => Buffer.concat(Array.from({ length: times }, () => frame));

/**
 * What a hostile client can send on a WebSocket whose server accepts frames up to `maxPayload` bytes: reserved bits
 * and opcodes, unmasked and fragmented control frames, lengths up to 2^64-1, text that is not UTF-8, close codes
 * no one may send, frames cut short and bursts. The close codes are ws's (1002 protocol error, 1007 not UTF-8,
 * 1008 too many fragments, 1009 too big); benign cases carry none.
 */
export function createHostileFrames(options: { maxPayload: number }): HostileFrame[] {
  const { maxPayload } = options;
  const hello = Buffer.from('hello');
  const cases: HostileFrame[] = [
    { kind: 'a masked text frame (benign)', bytes: encodeFrame({ opcode: TEXT, payload: hello }) },
    { kind: 'a ping (benign)', bytes: encodeFrame({ opcode: PING, payload: hello }) },
    {
      kind: 'a 64-bit length of 5 (not the shortest form, accepted)',
      bytes: encodeFrame({ opcode: BINARY, payload: hello, lengthForm: 64 }),
    },
    {
      kind: 'a close 1000 (echoed)',
      bytes: encodeFrame({ opcode: CLOSE, payload: closePayload(1000) }),
      expectedClose: 1000,
    },
    {
      kind: 'a close 4000 (echoed)',
      bytes: encodeFrame({ opcode: CLOSE, payload: closePayload(4000) }),
      expectedClose: 4000,
    },
  ];
  for (const [name, rsv] of [
    ['RSV1', 0x40],
    ['RSV2', 0x20],
    ['RSV3', 0x10],
    ['RSV1-3', 0x70],
  ] as const) {
    cases.push({
      kind: `${name} on a text frame`,
      bytes: encodeFrame({ opcode: TEXT, rsv, payload: hello }),
      expectedClose: 1002,
    });
  }
  cases.push({ kind: 'RSV1 on a ping', bytes: encodeFrame({ opcode: PING, rsv: 0x40 }), expectedClose: 1002 });
  for (const opcode of [3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf]) {
    cases.push({
      kind: `reserved opcode 0x${opcode.toString(16)}`,
      bytes: encodeFrame({ opcode, payload: hello }),
      expectedClose: 1002,
    });
  }
  cases.push(
    {
      kind: 'an unmasked text frame',
      bytes: encodeFrame({ opcode: TEXT, payload: hello, mask: false }),
      expectedClose: 1002,
    },
    { kind: 'an unmasked ping', bytes: encodeFrame({ opcode: PING, mask: false }), expectedClose: 1002 },
    {
      kind: 'a fragmented ping',
      bytes: encodeFrame({ opcode: PING, fin: false, payload: hello }),
      expectedClose: 1002,
    },
    {
      kind: 'a fragmented close',
      bytes: encodeFrame({ opcode: CLOSE, fin: false, payload: closePayload(1000) }),
      expectedClose: 1002,
    },
    {
      kind: 'a ping of 126 bytes',
      bytes: encodeFrame({ opcode: PING, payload: Buffer.alloc(126, 1) }),
      expectedClose: 1002,
    },
    {
      kind: 'a close of 200 bytes',
      bytes: encodeFrame({ opcode: CLOSE, payload: closePayload(1000, Buffer.alloc(198, 97)) }),
      expectedClose: 1002,
    },
    {
      kind: 'a ping claiming 2^63-1 bytes',
      bytes: encodeFrame({ opcode: PING, claimedLength: 2n ** 63n - 1n }),
      expectedClose: 1002,
    },
    // 14 bytes: the frame that ended the gateway before issue 44.
    {
      kind: 'a binary frame claiming 2^63-1 bytes',
      bytes: encodeFrame({ opcode: BINARY, claimedLength: 2n ** 63n - 1n }),
      expectedClose: 1009,
    },
    {
      kind: 'a text frame claiming 2^64-1 bytes',
      bytes: encodeFrame({ opcode: TEXT, claimedLength: 2n ** 64n - 1n }),
      expectedClose: 1009,
    },
    {
      kind: 'a frame claiming 2^63 bytes',
      bytes: encodeFrame({ opcode: BINARY, claimedLength: 2n ** 63n }),
      expectedClose: 1009,
    },
    {
      kind: 'a frame claiming 2^53 bytes',
      bytes: encodeFrame({ opcode: BINARY, claimedLength: 2n ** 53n }),
      expectedClose: 1009,
    },
    {
      kind: 'a frame claiming 2^32 bytes',
      bytes: encodeFrame({ opcode: BINARY, claimedLength: 2n ** 32n }),
      expectedClose: 1009,
    },
    {
      kind: 'an unmasked frame claiming 2^63-1 bytes',
      bytes: encodeFrame({ opcode: BINARY, claimedLength: 2n ** 63n - 1n, mask: false }),
      expectedClose: 1002,
    },
    {
      kind: 'a frame one byte past the limit',
      bytes: encodeFrame({ opcode: BINARY, payload: Buffer.alloc(maxPayload + 1, 7) }),
      expectedClose: 1009,
    },
    {
      kind: 'fragments together one byte past the limit',
      bytes: Buffer.concat([
        encodeFrame({ opcode: BINARY, fin: false, payload: Buffer.alloc(maxPayload, 7) }),
        encodeFrame({ opcode: CONTINUATION, payload: Buffer.alloc(1, 7) }),
      ]),
      expectedClose: 1009,
    },
  );
  for (const [name, bytes] of [
    ['0xff', [0xff]],
    ['a lone continuation byte', [0x80]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['a surrogate', [0xed, 0xa0, 0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ] as const) {
    cases.push({
      kind: `text with ${name}`,
      bytes: encodeFrame({ opcode: TEXT, payload: Buffer.from(bytes) }),
      expectedClose: 1007,
    });
  }
  cases.push(
    {
      kind: 'text whose UTF-8 breaks across fragments',
      bytes: Buffer.concat([
        encodeFrame({ opcode: TEXT, fin: false, payload: Buffer.from([0xe2, 0x82]) }),
        encodeFrame({ opcode: CONTINUATION, payload: Buffer.from([0x28]) }),
      ]),
      expectedClose: 1007,
    },
    {
      kind: 'a close whose reason is not UTF-8',
      bytes: encodeFrame({ opcode: CLOSE, payload: closePayload(1000, Buffer.from([0xff, 0xfe])) }),
      expectedClose: 1007,
    },
    {
      kind: 'a close of one byte',
      bytes: encodeFrame({ opcode: CLOSE, payload: Buffer.from([3]) }),
      expectedClose: 1002,
    },
  );
  for (const code of [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65_535]) {
    cases.push({
      kind: `a close with code ${code}`,
      bytes: encodeFrame({ opcode: CLOSE, payload: closePayload(code) }),
      expectedClose: 1002,
    });
  }
  cases.push(
    {
      kind: 'a continuation with nothing to continue',
      bytes: encodeFrame({ opcode: CONTINUATION, payload: hello }),
      expectedClose: 1002,
    },
    {
      kind: 'a new text frame inside a fragmented one',
      bytes: Buffer.concat([
        encodeFrame({ opcode: TEXT, fin: false, payload: hello }),
        encodeFrame({ opcode: TEXT, payload: hello }),
      ]),
      expectedClose: 1002,
    },
    {
      kind: 'more fragments than ws buffers (16,385 empty ones)',
      bytes: Buffer.concat([
        encodeFrame({ opcode: BINARY, fin: false }),
        repeat(encodeFrame({ opcode: CONTINUATION, fin: false }), 16_384),
      ]),
      expectedClose: 1008,
    },
    { kind: 'the first byte of a frame, then FIN', bytes: Buffer.from([0x81]), endAfter: true },
    { kind: 'a header without its mask key, then FIN', bytes: Buffer.from([0x81, 0x85, 0x37]), endAfter: true },
    {
      kind: 'half a payload, then FIN',
      bytes: encodeFrame({ opcode: TEXT, payload: Buffer.alloc(100, 97) }).subarray(0, 60),
      endAfter: true,
    },
    { kind: 'a 64-bit length cut short, then FIN', bytes: Buffer.from([0x82, 0xff, 0x7f, 0xff, 0xff]), endAfter: true },
    {
      kind: 'a burst of 1,000 text frames (benign)',
      bytes: repeat(encodeFrame({ opcode: TEXT, payload: hello }), 1000),
    },
    {
      kind: 'a burst of 40 pings ending in a reserved opcode',
      bytes: Buffer.concat([repeat(encodeFrame({ opcode: PING, payload: hello }), 40), encodeFrame({ opcode: 0x3 })]),
      expectedClose: 1002,
    },
  );
  return cases;
}

/** 2,000 pings in one write, from a client that reads nothing back: a server must not queue its pongs without bound. */
export const PING_FLOOD = repeat(encodeFrame({ opcode: PING, payload: Buffer.alloc(125, 1) }), 2000);
