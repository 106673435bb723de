import { readErrorCode } from '../errors/read-caught-error';

/** Connect failures that mean "NATS is not there (yet)": an outage to wait out, not a fault to investigate. */
const OUTAGE_CODES = new Set([
  'CONNECTION_REFUSED',
  'TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

export interface ConnectFailure {
  /** The error's code, when it has one. */
  code: string | undefined;
  /** NATS is not there (yet), as opposed to a fault such as refused credentials. */
  outage: boolean;
  /** Equal for two failures worth the same log line: every outage is one kind, any other failure its code. */
  kind: string;
}

/** What a failed connect to NATS means: an outage to wait out, or a fault (by its code) to report. */
export function describeConnectFailure(err: unknown): ConnectFailure {
  const code = readErrorCode(err);
  const outage = code !== undefined && OUTAGE_CODES.has(code);
  return { code, outage, kind: outage ? 'outage' : (code ?? String(err)) };
}
