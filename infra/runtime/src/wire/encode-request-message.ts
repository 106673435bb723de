import type { EndpointDesc, IncomingRequest } from './types';

/**
 * The request message of the wire contract up to its `request` value: the part that is the same for every call to
 * an endpoint, computed once when the endpoint is compiled. encodeRequestMessage closes it.
 */
export function createMessagePrefix(topic: string, desc: EndpointDesc): string {
  return (
    `{"topic":${JSON.stringify(topic)},"method":${JSON.stringify(desc.method)},"uri":${JSON.stringify(desc.uri)},` +
    `"endpointDesc":${JSON.stringify(desc)},"request":`
  );
}

/**
 * Each caller identity's JSON, made once. A busy client's identity is one object on all of its calls (the gateway's
 * security policy keeps one per verified credential and never changes it), so its calls pay no serialization for it.
 */
const userJson = new WeakMap<object, string>();

function serializeUser(user: object): string {
  let json = userJson.get(user);
  if (json === undefined) userJson.set(user, (json = JSON.stringify(user)));
  return json;
}

/** The request message as bytes: an endpoint's prefix (createMessagePrefix), then this call's `request`. */
export function encodeRequestMessage(prefix: string, request: IncomingRequest): Buffer {
  const { user } = request;
  if (typeof user !== 'object' || user === null) return Buffer.from(`${prefix}${JSON.stringify(request)}}`);
  // Every member but `user`, named (the type says when one is added): a rest copy leaving `user` out cost more than
  // serializing it did.
  const { cookies, headers, parameters, body, bodyEncoding } = request;
  const call = { cookies, headers, parameters, body, bodyEncoding } satisfies Record<
    Exclude<keyof IncomingRequest, 'user'>,
    unknown
  >;
  // `call` always has its cookies, headers, parameters and body: its JSON ends with `}` after at least one member.
  const json = JSON.stringify(call);
  return Buffer.from(`${prefix}${json.slice(0, -1)},"user":${serializeUser(user)}}}`);
}
