import type { IncomingHttpHeaders } from 'node:http';
import { RestbusError } from '../../errors/restbus-error';

const SEQUENCE = /^(0|[1-9][0-9]{0,15})$/;

function refuse(location: string): never {
  const message = `${location} must be an event id the stream gave (a whole number)`;
  throw new RestbusError('REQUEST_INVALID', message, { details: { problems: [{ location, message }] } });
}

function toSequence(value: string, location: string): number {
  if (!SEQUENCE.test(value)) refuse(location);
  const seq = Number(value);
  if (!Number.isSafeInteger(seq)) refuse(location);
  return seq;
}

/**
 * Where a client resumes: `Last-Event-ID` (what EventSource sends on reconnecting) first, else `?since=`; undefined
 * for a new client. Anything but a whole number is a 400 REQUEST_INVALID.
 */
export function readResumePoint(headers: IncomingHttpHeaders, query: string): number | undefined {
  const header = headers['last-event-id'];
  if (typeof header === 'string' && header !== '') return toSequence(header.trim(), 'header.last-event-id');
  const since = new URLSearchParams(query).get('since');
  return since === null || since === '' ? undefined : toSequence(since, 'query.since');
}
