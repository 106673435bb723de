import type { NatsConnection } from 'nats';
import { decodeResponseMessage } from '../wire/codec';
import { createRequestHeaders } from '../wire/headers';
import type { QueryValue, RequestMessage, ResponseMessage } from '../wire/types';
import type { Contract } from './contract';
import { toOperationSubject } from './to-operation-subject';

export interface ContractClientOptions {
  nc: NatsConnection;
  topicPrefix: string;
  contract: Contract;
  /** How long a call waits for its reply, in ms (default 5000). */
  timeout?: number;
}

/** What a call sends: the operation's parameters and body, typed by the generated client. */
export interface CallParts {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  headers?: Record<string, unknown>;
  body?: unknown;
}

const toText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
const toQueryValue = (value: unknown): QueryValue => (Array.isArray(value) ? value.map(toText) : toText(value));

/**
 * Calls a contract's operations over NATS as the gateway would: a request message to the operation's subject, the
 * parameters as text, the body as JSON. Resolves with the service's reply, whatever its status. The generated
 * client (a ContractClient) is this, typed.
 */
export function createContractClient(
  options: ContractClientOptions,
): Record<string, (parts?: CallParts) => Promise<ResponseMessage>> {
  const calls: Record<string, (parts?: CallParts) => Promise<ResponseMessage>> = {};
  for (const operation of options.contract.operations) {
    const topic = toOperationSubject(options.topicPrefix, operation);
    calls[operation.name] = async (parts = {}) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(parts.headers ?? {})) headers[name.toLowerCase()] = toText(value);
      if (parts.body !== undefined) headers['content-type'] ??= 'application/json';
      const message: RequestMessage = {
        topic,
        method: operation.method,
        uri: operation.path,
        endpointDesc: {
          uri: operation.path,
          jsfUri: operation.path.replace(/\{([^}]+)\}/g, ':$1'),
          method: operation.method,
          operationId: operation.operationId ?? null,
          consumes: [],
          produces: [],
          responses: {},
        },
        request: {
          cookies: {},
          headers,
          parameters: {
            query: Object.fromEntries(
              Object.entries(parts.query ?? {}).map(([name, value]) => [name, toQueryValue(value)]),
            ),
            uri: Object.fromEntries(Object.entries(parts.params ?? {}).map(([name, value]) => [name, toText(value)])),
          },
          body: parts.body === undefined ? '' : toText(parts.body),
        },
      };
      const reply = await options.nc.request(topic, JSON.stringify(message), {
        timeout: options.timeout ?? 5000,
        headers: createRequestHeaders(),
      });
      return decodeResponseMessage(reply.data);
    };
  }
  return calls;
}
