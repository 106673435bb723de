/** What part of a reply breaks its operation's contract: the metric's `kind` label. */
export type ViolationKind = 'status' | 'content-type' | 'header' | 'body';

/**
 * One way a reply breaks its operation's contract. `error`s are refused by `--validateReplies enforce`; a
 * `warning` (an error status the operation does not declare, as Prism grades it) is only said.
 */
export interface ReplyViolation {
  kind: ViolationKind;
  severity: 'error' | 'warning';
  /** `status`, `content-type`, `header/<name>` (lower case), or the body's JSON pointer (`/items/3/name`, `` for the whole). */
  pointer: string;
  /** What the contract asks for (`string`, `present`, `one of "a", "b"`) and what the reply has (`42`, `absent`). */
  expected: string;
  actual: string;
  /** The ajv keyword for a schema's violation (`type`, `required` …), as Prism's `code`. */
  code?: string;
  /** One sentence, without the reply's values beyond `actual`. */
  message: string;
}

/** Where a problem of a REQUEST_INVALID-shaped answer says it is: `status`, `header/x-a`, `body/items/3/name`. */
export const toLocation = (violation: ReplyViolation): string =>
  violation.kind === 'body' ? `body${violation.pointer}` : violation.pointer;

/** Appends a key to a JSON pointer (RFC 6901 escapes). */
export const appendPointer = (pointer: string, key: string | number): string =>
  `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** What `actual` says of a value: short JSON for a scalar, the shape of a container. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'absent';
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (value !== null && typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
