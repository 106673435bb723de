import { headers, Match, type MsgHdrs } from 'nats';

export const MESSAGE_TYPE_HEADER = 'message-type';
export const RPC_REQUEST = 'rpc/request';
export const RPC_RESPONSE = 'rpc/response';
/** Set by the NATS services API (`respondError`); the gateway maps them to the HTTP status. */
export const SERVICE_ERROR_CODE_HEADER = 'Nats-Service-Error-Code';
export const SERVICE_ERROR_HEADER = 'Nats-Service-Error';
/**
 * The milliseconds a call still has when the gateway (re)publishes it: a relative budget, never a clock time, since
 * clocks differ across machines. A service answers by then (see readCarriedBudget); easer's gateway sends none.
 */
export const DEADLINE_HEADER = 'Restbus-Deadline-Ms';

function createHeaders(messageType: string): MsgHdrs {
  const result = headers();
  result.set('content-type', 'application/json');
  result.set(MESSAGE_TYPE_HEADER, messageType);
  return result;
}

export function createRequestHeaders(): MsgHdrs {
  return createHeaders(RPC_REQUEST);
}

export function createResponseHeaders(): MsgHdrs {
  return createHeaders(RPC_RESPONSE);
}

/**
 * The budget a request message carries (DEADLINE_HEADER), in ms, or undefined when it carries none or one that is
 * not a whole number of ms (negative, fractional, words, past any sane timeout): such a call keeps the service's own
 * deadline, as a call from easer's gateway does.
 */
export function readCarriedBudget(hdrs: MsgHdrs | undefined): number | undefined {
  const text = hdrs?.get(DEADLINE_HEADER, Match.IgnoreCase);
  if (!text || !/^\d{1,9}$/.test(text)) return undefined;
  return Number(text);
}

/** Sets the budget a call still has on its request headers, just before it is (re)published. */
export function setCarriedBudget(hdrs: MsgHdrs, ms: number): void {
  hdrs.set(DEADLINE_HEADER, String(Math.max(0, Math.floor(ms))));
}
