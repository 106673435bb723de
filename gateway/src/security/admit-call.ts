import { isRestbusError, RestbusError, type IncomingRequest, type Logger } from '@restbus/infra';
import type { GatewayMetrics } from '../observability/create-metrics';
import { describeTrace, type TraceContext } from '../observability/trace-context';
import type { CallPolicy, PolicyCall } from './call-policy';

/**
 * Runs an endpoint's policy on a call: undefined when it is admitted, else the refusal to answer it with (counted by
 * code). A policy that fails in an unforeseen way refuses with INTERNAL, logged with its cause: it never lets a call by.
 * Synchronous when the policy decides at once (a token verified before): the busiest path makes no promise.
 */
export function admitCall(
  policy: CallPolicy,
  call: PolicyCall,
  deps: AdmitDeps,
): RestbusError | undefined | Promise<RestbusError | undefined> {
  try {
    const decided = policy.admit(call);
    return decided ? decided.then(admitted, (err: unknown) => refuse(err, deps)) : undefined;
  } catch (err) {
    return refuse(err, deps);
  }
}

interface AdmitDeps {
  metrics: GatewayMetrics;
  logger: Logger;
  trace: TraceContext;
}

const admitted = (): undefined => undefined;

/** The refusal a policy's failure is answered with, counted by code; an unforeseen failure is logged with its cause. */
function refuse(err: unknown, deps: AdmitDeps): RestbusError {
  if (!isRestbusError(err))
    deps.logger.error({ err, ...describeTrace(deps.trace) }, 'the credentials could not be checked');
  const refusal = isRestbusError(err) ? err : new RestbusError('INTERNAL', 'the credentials could not be checked');
  deps.metrics.refused(refusal.code);
  return refusal;
}

/**
 * The request message's part the service reads of the caller: `request.user`, the identity the policy verified;
 * without the `Authorization` header when `dropCredentials` (the raw token then stays at the edge).
 */
export function attachCaller(request: IncomingRequest, call: PolicyCall, dropCredentials: boolean): void {
  if (!call.user) return;
  request.user = call.user;
  if (!dropCredentials || request.headers.authorization === undefined) return;
  // A copy: the headers are Node's own object until here.
  const { authorization: _dropped, ...kept } = request.headers;
  request.headers = kept;
}
