import { isJsonMediaType } from '../http/is-json-media-type';
import { jsonText } from '../wire/json-text';
import type { HeaderValue, ResponseMessage } from '../wire/types';
import type { ContractOperation } from './contract';

const hasContentType = (headers: Record<string, HeaderValue>): boolean =>
  Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');

/**
 * What a reply of an operation is sent as when its handler names no content-type and gives a body: the one media
 * type its status declares (the status's own key first, then `4XX`, then `default`); a status that declares several
 * leaves the default (text for a string, JSON for any other value). A string under a JSON type is sent as JSON text
 * (quoted), as the type says; under `text/*` it goes as the text. Undefined when no status declares exactly one type,
 * so such an operation's replies are handed on untouched.
 */
export function createDeclaredContentType(
  operation: ContractOperation,
): ((reply: ResponseMessage) => ResponseMessage) | undefined {
  const declared = new Map(Object.entries(operation.responses ?? {}).map(([key, types]) => [key.toUpperCase(), types]));
  if (![...declared.values()].some((types) => types.length === 1)) return undefined;
  return (reply) => {
    // Not a response message: the responder says so; no body: no type to name.
    if (reply === null || typeof reply !== 'object' || reply.body === undefined || reply.body === null) return reply;
    if (reply.headers && hasContentType(reply.headers)) return reply;
    const status = String(reply.status ?? 200);
    const types = declared.get(status) ?? declared.get(`${status[0]}XX`) ?? declared.get('DEFAULT');
    if (types?.length !== 1) return reply;
    const [type] = types;
    const body =
      typeof reply.body === 'string' && isJsonMediaType(type) ? jsonText(JSON.stringify(reply.body)) : reply.body;
    return { ...reply, headers: { ...reply.headers, 'content-type': type }, body };
  };
}
