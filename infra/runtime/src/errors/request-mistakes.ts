import { MAX_JSON_DEPTH } from '../limits/max-json-depth';
import { RestbusError, type ErrorCode, type RequestProblem, type RestbusErrorOptions } from './restbus-error';

/** One mistake a client can make, as every restbus server answers it. */
export interface RequestMistake {
  /** The code, and with it the one status (ErrorCodes), every server answers the mistake with. */
  code: ErrorCode;
  /** The `error` text when the server has nothing more precise to say. */
  says: string;
  /** The one problem a mistake in the body lists under `problems`, as a refused check lists its own. */
  problem?: RequestProblem;
}

/**
 * The mistakes a client can make that both the gateway and the mock server see, each with one code and so one
 * status: a client that moves from `restbus-mock` to `restbus-gateway -m`, or from a mock to the services, gets the
 * same answer for the same mistake. A malformed or too deep JSON body is `REQUEST_INVALID` with a `problems` entry,
 * as a body that breaks its schema is and as the services answer it: the client learns where, in one shape.
 * gateway/README.md and mock-server/README.md list them; a test drives both servers with each.
 */
export const REQUEST_MISTAKES = {
  /** A bad request line or header, HTTP/1.1 without Host (createHttpServer answers it for both). */
  notHttp: { code: 'BAD_REQUEST', says: 'the request is not valid HTTP' },
  headersTooLarge: { code: 'HEADERS_TOO_LARGE', says: 'the request headers are too large' },
  tooSlow: { code: 'REQUEST_TIMEOUT', says: 'the request took too long to arrive' },
  /** `%ZZ`, a lone `%`, escapes that are not UTF-8. */
  malformedPath: { code: 'BAD_REQUEST', says: 'the path holds a malformed percent-encoding' },
  notFound: { code: 'NOT_FOUND', says: 'nothing is served at this path' },
  /** The answer names the methods there are in `Allow`. */
  methodNotAllowed: { code: 'METHOD_NOT_ALLOWED', says: 'the method is not served at this path' },
  /** The answer names what would do in `WWW-Authenticate`. */
  credentialsMissing: { code: 'UNAUTHORIZED', says: 'the request needs credentials it does not carry' },
  bodyTooLarge: { code: 'BODY_TOO_LARGE', says: 'the request body is too large' },
  /** The body ended before its announced length, or its chunks are broken. */
  bodyUnreadable: { code: 'BAD_REQUEST', says: 'the request body could not be read' },
  /** A content coding or charset the server cannot decode (a JSON body is read as UTF-8 whatever it names). */
  bodyUndecodable: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    says: 'the request body is in a content coding or charset this server cannot decode',
  },
  /** Not JSON, or JSON not in UTF-8 (RFC 8259 §8.1: JSON between systems is UTF-8). */
  malformedJson: {
    code: 'REQUEST_INVALID',
    says: 'the body is not valid JSON',
    problem: { location: 'body', message: 'is not valid JSON' },
  },
  /** Checked on the text before parsing: native JSON work costs more a level the deeper it goes. */
  jsonTooDeep: {
    code: 'REQUEST_INVALID',
    says: `the body nests deeper than ${MAX_JSON_DEPTH} levels`,
    problem: { location: 'body', message: `nests deeper than ${MAX_JSON_DEPTH} levels` },
  },
  /** A body described as JSON sent as another type. */
  notJson: {
    code: 'REQUEST_INVALID',
    says: 'the body must be JSON',
    problem: { location: 'body', message: 'must be JSON' },
  },
  /** With --validate: the parameters or the body break what the description declares (`problems` says where). */
  notAsDescribed: { code: 'REQUEST_INVALID', says: 'the request does not match its description' },
} as const satisfies Record<string, RequestMistake>;

export type RequestMistakeName = keyof typeof REQUEST_MISTAKES;

/**
 * The error a server answers a client's mistake with: the table's code, its `error` text unless `message` says
 * more, and for a mistake in the body its problem under `problems` (after any `options.details`' own).
 */
export function refuseRequest(name: RequestMistakeName, message?: string, options?: RestbusErrorOptions): RestbusError {
  const mistake: RequestMistake = REQUEST_MISTAKES[name];
  const details = mistake.problem ? { problems: [mistake.problem], ...options?.details } : options?.details;
  return new RestbusError(mistake.code, message ?? mistake.says, { ...options, details });
}
