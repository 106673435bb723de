import { headers, type MsgHdrs } from 'nats';

export const MESSAGE_TYPE_HEADER = 'message-type';
export const RPC_REQUEST = 'rpc/request';
export const RPC_RESPONSE = 'rpc/response';
/** Set by the NATS services API (`respondError`); the gateway maps them to the HTTP status. */
export const SERVICE_ERROR_CODE_HEADER = 'Nats-Service-Error-Code';
export const SERVICE_ERROR_HEADER = 'Nats-Service-Error';

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
