import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { CallerIdentity } from '@restbus/infra';
import type { TraceContext } from '../observability/trace-context';
import type { CompiledEndpoint } from '../routing/route-table';

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
