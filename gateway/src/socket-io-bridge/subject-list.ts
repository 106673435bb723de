import { escapeControlCharacters, findControlCharacter } from '@restbus/openapi';

/**
 * The longest subject accepted: NATS reads a SUB or PUB line of at most 4096 bytes (max_control_line), which also
 * holds a reply subject and a size; a quarter of it leaves that room.
 */
export const MAX_SUBJECT_BYTES = 1024;

/**
 * Event names socket.io keeps for itself, on the server and in the client: `io.emit('disconnect', …)` throws and a
 * client cannot emit or listen to them as messages. All are valid NATS subjects.
 */
const RESERVED_EVENT_NAMES = new Set([
  'connect',
  'connect_error',
  'disconnect',
  'disconnecting',
  'newListener',
  'removeListener',
]);

/** easer's `-i`/`-o` lists: split on commas, each item trimmed; empty items (`a,,b`, a trailing comma) dropped. */
export function readSubjectList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * What keeps `subject` from being one NATS subject (undefined when nothing does). With `wildcards`, `*` may stand
 * for a whole token and `>` for the last one, as in a subscription; without, both are refused (a publish).
 */
export function describeSubjectProblem(subject: string, options: { wildcards: boolean }): string | undefined {
  const control = findControlCharacter(subject);
  if (control) return `contains ${control}`;
  if (/\s/.test(subject)) return 'contains whitespace';
  const bytes = Buffer.byteLength(subject);
  if (bytes > MAX_SUBJECT_BYTES) return `has ${bytes} bytes, more than ${MAX_SUBJECT_BYTES}`;
  const tokens = subject.split('.');
  if (tokens.includes('')) return 'has an empty token (a leading, trailing or double ".")';
  for (const [index, token] of tokens.entries()) {
    const wildcard = token === '*' || token === '>';
    if (wildcard && !options.wildcards) return `contains the wildcard "${token}": a client publishes to one subject`;
    if (token === '>' && index !== tokens.length - 1) return 'has ">" before its last token';
    if (!wildcard && /[*>]/.test(token)) return `has "${token}", where "*" and ">" may only be whole tokens`;
  }
  return undefined;
}

/** A config check (SettingSpec.check) for a comma-separated subject list: the first item that is no subject. */
export function checkSubjectList(options: { wildcards: boolean }): (value: unknown) => string | undefined {
  return (value) => {
    for (const subject of readSubjectList(String(value))) {
      if (RESERVED_EVENT_NAMES.has(subject)) {
        return `"${subject}" is an event name socket.io reserves, so no message could go by it`;
      }
      const problem = describeSubjectProblem(subject, options);
      if (problem) return `${JSON.stringify(escapeControlCharacters(subject))} is not a NATS subject: it ${problem}`;
    }
    return undefined;
  };
}

/** True when `subject` subscribes to more than one subject, so that a message's own subject is worth passing on. */
export function hasWildcard(subject: string): boolean {
  return subject.split('.').some((token) => token === '*' || token === '>');
}
