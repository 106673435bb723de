import Ajv, { type ErrorObject } from 'ajv';
import { RestbusError } from '../errors/restbus-error';
import { requestMessageSchema, responseMessageSchema } from './schemas';
import type { RequestMessage, ResponseMessage } from './types';

const ajv = new Ajv({ allErrors: true, strict: false });
const validateRequest = ajv.compile<RequestMessage>(requestMessageSchema);
const validateResponse = ajv.compile<ResponseMessage>(responseMessageSchema);
const decoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

export function encodeMessage(message: RequestMessage | ResponseMessage): Uint8Array {
  return encoder.encode(JSON.stringify(message));
}

/** Describes ajv errors as `<path>: <message>` lines, the path of the root being `/`. */
export function describeSchemaErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((error) => `${error.instancePath || '/'}: ${error.message ?? 'is invalid'}`).join('; ');
}

function parseJson(payload: Uint8Array, code: 'MESSAGE_INVALID' | 'BAD_REPLY', what: string): unknown {
  try {
    return JSON.parse(decoder.decode(payload));
  } catch (err) {
    throw new RestbusError(code, `${what} is not valid UTF-8 JSON`, { cause: err });
  }
}

export function decodeRequestMessage(payload: Uint8Array): RequestMessage {
  const value = parseJson(payload, 'MESSAGE_INVALID', 'the request message');
  if (!validateRequest(value)) {
    throw new RestbusError(
      'MESSAGE_INVALID',
      `the request message is malformed: ${describeSchemaErrors(validateRequest.errors)}`,
    );
  }
  return value;
}

export function isResponseMessage(value: unknown): value is ResponseMessage {
  return validateResponse(value);
}

export function decodeResponseMessage(payload: Uint8Array): ResponseMessage {
  const value = parseJson(payload, 'BAD_REPLY', 'the reply');
  if (!validateResponse(value)) {
    throw new RestbusError(
      'BAD_REPLY',
      `the reply is not a response message: ${describeSchemaErrors(validateResponse.errors)}`,
    );
  }
  return value;
}
