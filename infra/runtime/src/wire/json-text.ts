/**
 * A reply body that is JSON text already: a service that keeps the encoded form of what it serves (a page of a
 * list that has not changed) replies with it instead of the value, and nothing encodes it again.
 */
export class JsonText {
  constructor(readonly text: string) {}

  /** Where the body is encoded with the rest of a message (the envelope), it stands for its value. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

export function jsonText(text: string): JsonText {
  return new JsonText(text);
}
