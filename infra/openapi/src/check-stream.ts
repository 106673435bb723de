import { isJsonObject } from '@restbus/infra';
import type { ApiOperation } from './api-model';
import { findEventStream } from './find-event-stream';
import { findControlCharacter, MAX_STREAM_NAME_BYTES, MAX_STREAM_SUBJECT_BYTES } from './subject-limits';
const SHOWN_CHARACTERS = 48;
const PLACEHOLDER = /^\{([^{}]+)\}$/;

export interface StreamProblem {
  /** The member of `x-restbus-stream` at fault (`subject`, `stream`), or none for the declaration as a whole. */
  property?: 'subject' | 'stream';
  message: string;
}

const show = (text: string): string => {
  const chars = [...text];
  return `"${chars.slice(0, SHOWN_CHARACTERS).join('')}${chars.length > SHOWN_CHARACTERS ? '…' : ''}"`;
};

/**
 * Why an operation's `x-restbus-stream` cannot be served, or undefined: it is read with GET, from a 2xx
 * `text/event-stream` response, from a subject whose every token is a valid NATS token or a whole `{placeholder}`
 * naming a path parameter (its value is one token when the stream opens), and its `stream`, when given, is a name
 * nats-server accepts for a JetStream stream.
 */
export function checkStream(operation: ApiOperation, declared: unknown): StreamProblem | undefined {
  if (operation.method !== 'get') {
    return { message: 'a stream is read with GET: x-restbus-stream belongs on a GET operation' };
  }
  if (!findEventStream(operation.responses)) {
    return {
      message:
        'a stream needs a 2xx response with the media type text/event-stream (its itemSchema the schema of one event)',
    };
  }
  const { subject, stream } = isJsonObject(declared) ? declared : {};
  if (typeof subject !== 'string' || subject === '') {
    return {
      message: 'needs a subject, the NATS subject its events are published to (such as "persons.{id}.events")',
    };
  }
  const wrongSubject = checkSubjectTemplate(subject, operation);
  if (wrongSubject) return { property: 'subject', message: wrongSubject };
  if (stream !== undefined) {
    const wrongStream = checkStreamName(stream);
    if (wrongStream) return { property: 'stream', message: wrongStream };
  }
  return undefined;
}

function checkSubjectTemplate(subject: string, operation: ApiOperation): string | undefined {
  const control = findControlCharacter(subject);
  if (control) return `the subject holds ${control}, which cannot be part of a NATS subject`;
  const shown = show(subject);
  if (/\s/.test(subject)) return `the subject ${shown} holds whitespace, which ends a subject`;
  if (/[*>]/.test(subject)) {
    return `the subject ${shown} holds a NATS wildcard ("*" or ">"): events are published to one subject per stream`;
  }
  const tokens = subject.split('.');
  if (tokens.includes('')) return `the subject ${shown} has an empty token (a "." at an end or next to another)`;
  const pathParameters = new Set(operation.parameters.path.map(({ name }) => name));
  for (const token of tokens) {
    const placeholder = PLACEHOLDER.exec(token)?.[1];
    if (placeholder !== undefined) {
      if (!pathParameters.has(placeholder)) {
        return `the subject ${shown} has the placeholder {${placeholder}}, which is not a path parameter of the operation`;
      }
    } else if (/[{}]/.test(token)) {
      return (
        `the subject ${shown} has the token ${show(token)}: a placeholder must fill a whole token ` +
        '("persons.{id}.events", not "persons.x{id}")'
      );
    }
  }
  // Each value is checked as the stream opens (at most one token of 256 bytes); a template too long with one-byte
  // values can never open, and that the load can tell.
  const shortest = tokens.reduce(
    (bytes, token) => bytes + (PLACEHOLDER.test(token) ? 1 : Buffer.byteLength(token)),
    tokens.length - 1,
  );
  if (shortest > MAX_STREAM_SUBJECT_BYTES) {
    return (
      `the subject ${shown} has ${shortest} bytes even with one-byte values, more than the ${MAX_STREAM_SUBJECT_BYTES} ` +
      "a stream's subject may have: nats-server drops the connection whose protocol line passes its max_control_line"
    );
  }
  return undefined;
}

function checkStreamName(stream: unknown): string | undefined {
  if (typeof stream !== 'string' || stream === '') {
    return 'must be a JetStream stream name (a non-empty string such as "PERSONS")';
  }
  const control = findControlCharacter(stream);
  if (control) return `the stream name holds ${control}, which a JetStream stream name cannot hold`;
  const bytes = Buffer.byteLength(stream);
  if (bytes > MAX_STREAM_NAME_BYTES) {
    return `the stream name has ${bytes} bytes, more than the ${MAX_STREAM_NAME_BYTES} a JetStream stream name may have`;
  }
  if (/\s/.test(stream))
    return `the stream name ${show(stream)} holds whitespace, which a JetStream stream name cannot hold`;
  // nats-server refuses these: `.` `*` `>` would make its API subjects ambiguous, path separators its storage paths.
  const forbidden = /[.*>/\\]/.exec(stream)?.[0];
  if (forbidden)
    return `the stream name ${show(stream)} holds "${forbidden}", which a JetStream stream name cannot hold`;
  return undefined;
}
