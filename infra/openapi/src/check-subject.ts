import { findControlCharacter } from './subject-limits';

const SHOWN_CHARACTERS = 48;

/**
 * Why `subject` cannot be the subject a call is published to (an operation's `x-restbus-subject`), or undefined.
 * nats-server splits a protocol line at whitespace, reads `*` and `>` as wildcards (a service subscribed to one
 * would catch other operations' calls) and refuses a subject with an empty token.
 */
export function checkSubject(subject: unknown): string | undefined {
  if (typeof subject !== 'string' || subject === '') {
    return 'must be a NATS subject (a non-empty string such as "people.list")';
  }
  const control = findControlCharacter(subject);
  if (control) return `the subject holds ${control}, which cannot be part of a NATS subject`;
  const chars = [...subject];
  const shown = `"${chars.slice(0, SHOWN_CHARACTERS).join('')}${chars.length > SHOWN_CHARACTERS ? '…' : ''}"`;
  if (/\s/.test(subject)) return `the subject ${shown} holds whitespace, which ends a subject`;
  if (/[*>]/.test(subject)) {
    return `the subject ${shown} holds a NATS wildcard ("*" or ">"): a call is sent to one subject`;
  }
  if (subject.split('.').includes('')) {
    return `the subject ${shown} has an empty token (a "." at an end or next to another)`;
  }
  return undefined;
}
