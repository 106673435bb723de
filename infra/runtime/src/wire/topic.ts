import { RestbusError } from '../errors/restbus-error';

/** The subject an endpoint's request messages go to: `<topicPrefix>.<method>_<uri>`, method in lower case. */
export function toTopic(topicPrefix: string, method: string, uri: string): string {
  return `${topicPrefix}.${method.toLowerCase()}_${uri}`;
}

/**
 * Rejects subjects a NATS server would read as a wildcard or split at whitespace: an OpenAPI path such as
 * `/files/*` must not turn into a subscription that catches other endpoints' traffic.
 */
export function assertSafeTopic(topic: string): void {
  if (/\s/.test(topic)) {
    throw new RestbusError('OPENAPI_INVALID', `the subject "${topic}" contains whitespace`);
  }
  const tokens = topic.split('.');
  if (tokens.some((token) => token === '')) {
    throw new RestbusError(
      'OPENAPI_INVALID',
      `the subject "${topic}" has an empty token (leading, trailing or double ".")`,
    );
  }
  if (tokens.some((token) => token === '*' || token === '>')) {
    throw new RestbusError('OPENAPI_INVALID', `the subject "${topic}" contains a NATS wildcard token ("*" or ">")`);
  }
}
