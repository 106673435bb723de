import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { RestbusError } from '../errors/restbus-error';
import { MAX_JSON_DEPTH } from '../limits/max-json-depth';
import { isNestedDeeperThan } from './find-json-depth';
import { normalizeRequestMessage, type AcceptedRequestMessage } from './normalize-request-message';
import { JSON_SLICE_LENGTH, parseJsonInSlices } from './parse-json-in-slices';
import { acceptedRequestMessageSchema, responseMessageSchema } from './schemas';
import type { RequestMessage, ResponseMessage } from './types';

// The message wraps the body (easer sent it parsed) and the query in a few levels of its own.
const MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH + 8;

// Each check is compiled at its first message, not when infra loads: most processes that load it never read one kind
// or the other (the tool, the mock server and the gateway's lint worker read none, a gateway no request, a service no
// reply), and the compiles were a tenth of their start (issue 45). validateSchema off: the schemas are ours, and the
// tests check them against the meta-schema (schemas.test.ts); checking them at every start compiled the meta-schema
// first, once per Ajv instance (issue 45).
const checks: {
  request?: ValidateFunction<AcceptedRequestMessage>;
  response?: ValidateFunction<ResponseMessage>;
} = {};
const createAjv = (): Ajv => new Ajv({ allErrors: true, strict: false, validateSchema: false });

function compileRequestCheck(): ValidateFunction<AcceptedRequestMessage> {
  return (checks.request ??= createAjv().compile<AcceptedRequestMessage>(acceptedRequestMessageSchema));
}

/** The check of a response message (a reply, or a reply's head without its body: see reply-apart). */
export function compileResponseCheck(): ValidateFunction<ResponseMessage> {
  return (checks.response ??= createAjv().compile<ResponseMessage>(responseMessageSchema));
}

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

/** Reads a request message as restbus or easer sends it, in the one shape handlers see. */
export function decodeRequestMessage(payload: Uint8Array): RequestMessage {
  if (isNestedDeeperThan(payload, MAX_MESSAGE_DEPTH)) {
    throw new RestbusError('MESSAGE_INVALID', `the request message nests deeper than ${MAX_MESSAGE_DEPTH} levels`);
  }
  const value = parseJson(payload, 'MESSAGE_INVALID', 'the request message');
  const request = compileRequestCheck();
  if (!request(value)) {
    throw new RestbusError(
      'MESSAGE_INVALID',
      `the request message is malformed: ${describeSchemaErrors(request.errors)}`,
    );
  }
  return normalizeRequestMessage(value);
}

export function isResponseMessage(value: unknown): value is ResponseMessage {
  return compileResponseCheck()(value);
}

export function decodeResponseMessage(payload: Uint8Array): ResponseMessage {
  return toResponseMessage(parseJson(payload, 'BAD_REPLY', 'the reply'));
}

/**
 * decodeResponseMessage without holding the event loop for a large reply: past one slice (JSON_SLICE_LENGTH), the
 * text is parsed in slices, other clients served between them (a 650 KB reply of one object with 60,000 names held
 * the loop some 45 ms in one JSON.parse). A reply nested deeper than a message may be is parsed at once, as before:
 * what it then means (a violation of its schema, or passed on) is the caller's to say, not this parser's.
 */
export async function decodeLargeResponseMessage(payload: Uint8Array): Promise<ResponseMessage> {
  if (payload.length <= JSON_SLICE_LENGTH || isNestedDeeperThan(payload, MAX_MESSAGE_DEPTH)) {
    return decodeResponseMessage(payload);
  }
  let value: unknown;
  try {
    value = await parseJsonInSlices(decoder.decode(payload));
  } catch (err) {
    throw new RestbusError('BAD_REPLY', 'the reply is not valid UTF-8 JSON', { cause: err });
  }
  return toResponseMessage(value);
}

function toResponseMessage(value: unknown): ResponseMessage {
  const response = compileResponseCheck();
  if (!response(value)) {
    throw new RestbusError(
      'BAD_REPLY',
      `the reply is not a response message: ${describeSchemaErrors(response.errors)}`,
    );
  }
  return value;
}
