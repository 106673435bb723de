import { replyError } from '../wire/replies';

declare const notImplementedBrand: unique symbol;

/**
 * The reply of a handler stub: `501 NOT_IMPLEMENTED`. Handlers may return it whatever their operation declares; it
 * is branded, so a hand-written `{status: 501}` is still an undeclared status.
 */
export interface NotImplementedReply {
  status: 501;
  headers: Record<string, string>;
  body: { error: string; code: 'NOT_IMPLEMENTED' };
  readonly [notImplementedBrand]: true;
}

/** What a generated stub answers until its operation is written. */
export function notImplemented(operation: string): NotImplementedReply {
  return replyError('NOT_IMPLEMENTED', `${operation} is not implemented yet`) as NotImplementedReply;
}
