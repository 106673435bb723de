import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { CallerIdentity, EndpointDesc } from '@restbus/infra';
import type { TraceContext } from '../observability/trace-context';
import type { ApiEndpoint } from '../openapi/endpoint';
import type { CallPolicy } from '../security/call-policy';
import type { RequestCheck } from '../validation/create-request-validator';

/** An endpoint with everything a call needs computed once, at load. */
export interface CompiledEndpoint {
  desc: EndpointDesc;
  file: string;
  /** The subject its calls are sent to: the model's (`x-restbus-subject` overrides `<topicPrefix>.<method>_<path>`). */
  topic: string;
  /** Parameter names of the template, in order. */
  paramNames: string[];
  /** The request message up to its `request` value: the part that is the same for every call. */
  messagePrefix: string;
  /** With --validate: the check of its calls against the operation (absent when its schemas did not compile). */
  validate?: RequestCheck;
  /** With --auth: what a call must pass before it is answered (its operation's security), absent when nothing. */
  policy?: CallPolicy;
  /** The loaded operation it was compiled from: its model is what the mock (-m) answers from. */
  source: ApiEndpoint;
  /** How its calls are answered (not implemented, mock, forward, forward then mock), chosen once, here. */
  answer: CallAnswer;
}

/** One routed call to a described operation: everything its path through the gateway needs, in one object. */
export interface Call {
  endpoint: CompiledEndpoint;
  /** Path parameters, decoded. */
  params: Record<string, string>;
  /** The query string without its `?`. */
  query: string;
  req: IncomingMessage;
  res: ServerResponse;
  /** What every answer to this call carries: the request id, CORS, `connection: close` while shutting down. */
  headers: OutgoingHttpHeaders;
  trace: TraceContext;
  /** Who called, once the endpoint's policy verified it (--auth verify): the service finds it at `request.user`. */
  user?: CallerIdentity;
}

/** How the calls of one endpoint are answered, chosen when the routes are built (see createCallAnswers). */
export type CallAnswer = (call: Call) => Promise<void>;

/** An endpoint as its answer is chosen from: everything compiled but the answer. */
export type AnsweredEndpoint = Omit<CompiledEndpoint, 'answer'>;
