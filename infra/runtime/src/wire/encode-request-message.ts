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

/** The request message as bytes: an endpoint's prefix (createMessagePrefix), then this call's `request`. */
export function encodeRequestMessage(prefix: string, request: IncomingRequest): Buffer {
  return Buffer.from(`${prefix}${JSON.stringify(request)}}`);
}
