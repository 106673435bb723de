/** The lower-case HTTP methods an endpoint can have. */
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options' | 'trace';

export interface ResponseDesc {
  /** The status code as a string, e.g. `"200"` or `"default"`. */
  status: string;
  headers: Record<string, unknown>;
  /** Examples keyed by media type. */
  examples: Record<string, unknown>;
}

/** The minimized endpoint descriptor the gateway sends with every request message. */
export interface EndpointDesc {
  /** Path template with `{name}` parameters. */
  uri: string;
  /** Path template with `:name` parameters. */
  jsfUri: string;
  method: HttpMethod;
  operationId: string | null;
  consumes: string[];
  produces: string[];
  responses: Record<string, ResponseDesc>;
}

/**
 * A query parameter's value: a string, a list of them (a repeated key), or, in qs's extended syntax as easer sent
 * it (`?b[c]=3`, `?a[]=1`), an object or list of such values.
 */
export type QueryValue = string | QueryValue[] | { [key: string]: QueryValue };

export interface IncomingRequest {
  cookies: Record<string, string>;
  /** Header names in lower case. */
  headers: Record<string, string | string[]>;
  parameters: {
    query: Record<string, QueryValue>;
    /** Path parameters keyed by name. */
    uri: Record<string, string>;
  };
  /** The exact request text, `""` when there is none; base64 when `bodyEncoding` says so. */
  body: string;
  bodyEncoding?: 'utf8' | 'base64';
  /**
   * Who called, as the gateway verified it (`--auth verify`): a {@link CallerIdentity}, which readCallerIdentity
   * reads. Absent when the operation is public or the gateway checks nothing. easer put passport's user here.
   */
  user?: unknown;
}

/** Who made a call, as the gateway verified it: what a service finds at `request.user` (readCallerIdentity). */
export interface CallerIdentity {
  /** The token's `sub`; an API key's name. */
  subject: string;
  /** The security schemes (as the document names them) whose credentials were verified, in requirement order. */
  schemes: string[];
  /** What the credentials grant: a token's `scope` (or `scp`, or the scheme's scopes claim); [] for an API key. */
  scopes: string[];
  /** The issuer of the verified token, when a token was verified. */
  issuer?: string;
  /** The token's claims its scheme passes on (`claims` in `x-restbus-jwt`), as the token has them. */
  claims: Record<string, unknown>;
}

/** What the gateway sends to `<topicPrefix>.<method>_<uri>`. */
export interface RequestMessage {
  topic: string;
  method: HttpMethod;
  uri: string;
  endpointDesc: EndpointDesc;
  request: IncomingRequest;
}

export type HeaderValue = string | number | string[];

/** What a service replies on the request's reply inbox. */
export interface ResponseMessage {
  /** HTTP status, 200 when absent. */
  status?: number;
  headers?: Record<string, HeaderValue>;
  /** Any JSON value; absent or null means no body. */
  body?: unknown;
}
