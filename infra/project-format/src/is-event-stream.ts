import type { FieldList, MethodDescriptor, ResponseDescriptor } from './types';

const EVENT_STREAM = 'text/event-stream';

/** Whether a Content-Type names Server-Sent Events (parameters and case aside). */
export const isEventStreamType = (type: string | undefined): boolean =>
  type !== undefined && type.split(';')[0].trim().toLowerCase() === EVENT_STREAM;

const declaredType = (headers: FieldList | undefined): string | undefined =>
  (headers ?? []).find(({ field }) => field.toLowerCase() === 'content-type')?.content;

/**
 * A response that is an event stream: it declares `Content-Type: text/event-stream`. Its `mockBody` is then a JSON
 * array of the events' data (one item per event) and its `validationSchema` the schema of one event.
 */
export const isEventStreamResponse = (response: ResponseDescriptor): boolean =>
  isEventStreamType(declaredType(response.headers));

/** Whether a method answers with an event stream: its OK response (else its first one) is one. */
export function isEventStreamMethod(method: MethodDescriptor): boolean {
  const ok = method.responses.find((response) => response.name === 'OK') ?? method.responses[0];
  return ok !== undefined && isEventStreamResponse(ok);
}
