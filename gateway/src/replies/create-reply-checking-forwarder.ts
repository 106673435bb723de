import { maxHeaderSize } from 'node:http';
import { RestbusError, type HeaderValue, type Logger, type ResponseMessage } from '@restbus/infra';
import type { ReplyCheckMode } from '../config';
import type { Forwarder, ReplyUse } from '../forward/create-forwarder';
import { traceStep } from '../observability/call-spans';
import { describeTrace } from '../observability/trace-context';
import type { GatewayMetrics } from '../observability/create-metrics';
import type { ApiEndpoint } from '../openapi/endpoint';
import type { ReplyChecker } from './create-reply-checks';
import { toLocation, type ReplyViolation } from './reply-violation';
import { formatViolationsHeader, VIOLATIONS_HEADER } from './sl-violations';

export interface ReplyCheckingOptions {
  forward: Forwarder;
  mode: Exclude<ReplyCheckMode, 'off'>;
  /** The fraction of replies checked (0 to 1). */
  sample: number;
  /** The checks of the operations served now: swapped on reload with the endpoints. */
  checkers(): ReadonlyMap<ApiEndpoint, ReplyChecker>;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Draws the sample; Math.random by default. */
  random?: () => number;
}

/** The most log lines one reply's violations take; the rest are counted in one more line. */
export const MAX_LOGGED_VIOLATIONS = 20;

// What the head of the answer may still take: Node's limit, less what the gateway adds (ids, CORS, vary, date).
const GATEWAY_HEAD_ROOM = 1024;

function headBytes(headers: Record<string, HeaderValue> | undefined): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(headers ?? {})) {
    for (const item of Array.isArray(value) ? value : [value])
      bytes += name.length + 4 + Buffer.byteLength(String(item));
  }
  return bytes;
}

/** What a check that threw says: the reply is not passed as if it had been checked. */
const UNCHECKED: ReplyViolation = {
  kind: 'body',
  severity: 'error',
  pointer: '',
  expected: 'a reply the check can read',
  actual: 'a reply the check failed on',
  message: 'could not be checked against the API description',
};

/** What a refused reply was for, when it opens a stream: a client reads that the stream failed on its first event. */
function describeUse(reply: ResponseMessage, use: ReplyUse): string {
  const status = reply.status ?? 200;
  return use === 'stream' && status >= 200 && status < 300 ? " (its stream's first event)" : '';
}

/** The reply without the service's own sl-violations: only the gateway says what it found. */
function withoutForgedViolations(reply: ResponseMessage): ResponseMessage {
  const headers = reply.headers;
  if (!headers || !Object.keys(headers).some((key) => key.toLowerCase() === VIOLATIONS_HEADER)) return reply;
  const kept: Record<string, HeaderValue> = {};
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() !== VIOLATIONS_HEADER) kept[key] = value;
  return { ...reply, headers: kept };
}

/**
 * Wraps a forwarder so that each reply (or the sampled fraction) is checked against its operation (see
 * createReplyChecks) before it is answered; the call path does not change. `report`: the reply goes out as it
 * came plus Prism's `sl-violations` header, with a log line and a metric per violation. `enforce`: a reply with an
 * error-graded violation is `502 REPLY_INVALID` with the problems (location, message); a warning (an undeclared
 * error status) is reported as in `report`. The check runs in the reply's own turn, so the answer waits for it and
 * nothing else. A check that throws is logged and is a violation: never a reply answered as if checked. A service's
 * own `sl-violations` is dropped from every reply, checked or not: a client trusts it as the gateway's. The 2xx
 * reply that opens a stream is checked as the stream's first event (ReplyChecker.check): refused, the stream does not
 * open and the client gets the 502.
 */
export function createReplyCheckingForwarder(options: ReplyCheckingOptions): Forwarder {
  const { forward, mode, sample, metrics, logger } = options;
  const random = options.random ?? Math.random;
  return async (endpoint, request, trace, use = 'answer') => {
    const reply = withoutForgedViolations(await forward(endpoint, request, trace, use));
    if (sample < 1 && !(random() < sample)) return reply;
    const checker = options.checkers().get(endpoint.source);
    if (!checker) return reply;
    const { name } = endpoint.source.model;
    const said = { operation: name, subject: endpoint.topic, ...describeTrace(trace) };
    let violations: ReplyViolation[];
    try {
      violations = await traceStep(trace, 'check reply', () => checker.check(reply, use));
    } catch (err) {
      logger.warn({ ...said, err }, 'the reply could not be checked against the API description');
      violations = [UNCHECKED];
    }
    if (violations.length === 0) return reply;
    record(violations, said);
    if (mode === 'enforce' && violations.some((violation) => violation.severity === 'error')) {
      throw new RestbusError(
        'REPLY_INVALID',
        `the reply of ${name}${describeUse(reply, use)} does not match the API description`,
        {
          details: {
            problems: violations.map((violation) => ({ location: toLocation(violation), message: violation.message })),
          },
        },
      );
    }
    const room = maxHeaderSize - GATEWAY_HEAD_ROOM - headBytes(reply.headers) - VIOLATIONS_HEADER.length - 4;
    const headers: Record<string, HeaderValue> = {
      ...reply.headers,
      [VIOLATIONS_HEADER]: formatViolationsHeader(violations, room),
    };
    return { ...reply, headers } satisfies ResponseMessage;
  };

  function record(violations: readonly ReplyViolation[], said: Record<string, unknown>): void {
    for (const violation of violations) metrics.replyViolation(String(said.operation), violation.kind);
    for (const { kind, severity, pointer, expected, actual } of violations.slice(0, MAX_LOGGED_VIOLATIONS)) {
      logger.warn({ ...said, kind, severity, pointer, expected, actual }, 'reply violates the API description');
    }
    if (violations.length > MAX_LOGGED_VIOLATIONS) {
      logger.warn(
        { ...said, more: violations.length - MAX_LOGGED_VIOLATIONS },
        'reply violates the API description in more ways (counted in restbus_reply_violations_total)',
      );
    }
  }
}
