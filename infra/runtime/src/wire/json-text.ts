/**
 * A reply body that is JSON text already: a service that keeps the encoded form of what it serves (a page of a
 * list that has not changed) replies with it instead of the value, and nothing encodes it again.
 */
export class JsonText {
  private encoded?: Uint8Array;

  constructor(readonly text: string) {}

  /** The text as UTF-8, encoded once however often it is sent. */
  bytes(): Uint8Array {
    this.encoded ??= new TextEncoder().encode(this.text);
    return this.encoded;
  }

  /** Where the body is encoded with the rest of a message (the envelope), it stands for its value. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

export function jsonText(text: string): JsonText {
  return new JsonText(text);
}
