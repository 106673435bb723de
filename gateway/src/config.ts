import {
  createHttpLimitSettings,
  inboxPrefixSetting,
  logFormatSetting,
  logLevelSetting,
  natsConnectionSettings,
  readErrorMessage,
  readPackageVersion,
  topicPrefixSetting,
  type HttpLimitConfig,
  type LogFormat,
  type NatsConnectionConfig,
  type ProgramSpec,
} from '@restbus/infra';
import proxyAddr from 'proxy-addr';
import { checkSubjectList } from './socket-io-bridge/subject-list';
import { authKeyBucketSetting } from './security/api-keys/auth-key-bucket-setting';
import { AUTH_MODES, type AuthMode } from './security/auth-mode';
import { readAuthSchemes } from './security/read-auth-schemes';

export interface GatewayConfig extends Partial<HttpLimitConfig>, NatsConnectionConfig {
  restApiPath: string[];
  port: number;
  topicPrefix: string;
  inboxPrefix: string;
  useMessaging: boolean;
  timeout: number;
  basePath: string;
  /** easer's WEBSERVER_STATIC_CONTENT_BASEPATH; loadConfig fills it, the working directory when left out. */
  staticContentBasePath?: string;
  bodyLimit: number;
  logLevel: string;
  logFormat?: LogFormat;
  cors?: string;
  validate: boolean;
  /**
   * With --validate: operations (operationId, or `METHOD /path` as written) served unchecked when their schemas
   * cannot be compiled; any other such operation keeps the gateway from starting.
   */
  validateUnchecked?: string[];
  /** easer's -m: answer from the API description's examples when no service does (or without -u). */
  enableMocking?: boolean;
  /** With -u -m: mock the unsafe methods too (POST, PUT, PATCH, DELETE) when no service answers; false by default. */
  mockWrites?: boolean;
  /** easer's -s: compress response bodies the client accepts compressed. */
  useCompression?: boolean;
  /** easer's -d: print the effective configuration (credentials left out) at start. */
  dumpConfig?: boolean;
  /** easer's default raw body parser: always in effect, accepted so that easer command lines run. */
  parseRaw?: boolean;
  /** Let `$refs` read local files outside the API file's folder; loadConfig fills it, false when left out. */
  allowOutsideRefs?: boolean;
  /** Refuse API descriptions with warnings too (by default only what keeps a route from being built). */
  strict?: boolean;
  /** Where the lint's warnings of texts linted before are kept (a folder of this user's), or `off`. */
  lintCache?: string;
  /** Print what is wrong with the API descriptions and exit (0 when they can be served, 1 when not). */
  check?: boolean;
  /**
   * Check forwarded replies against their operation: not at all (`off`, when left out), said (`report`: Prism's
   * `sl-violations` header, a log line, a metric), or refused (`enforce`: 502 REPLY_INVALID).
   */
  validateReplies?: ReplyCheckMode;
  /** The fraction of forwarded replies checked, 0 to 1 (1 when left out). */
  validateRepliesSample?: number;
  /** easer's -w: a socket.io server on the gateway's port, bridging -i and -o subjects (see socket-io-bridge/). */
  useWebsocket?: boolean;
  /** easer's -i: comma-separated subjects whose messages go to every socket.io client (readSubjectList). */
  inbound?: string;
  /** easer's -o: comma-separated subjects socket.io clients may publish to, one event name each. */
  outbound?: string;
  /** With -w: the bytes queued for one socket.io client past which it is disconnected. */
  wsBufferLimit?: number;
  /** Events queued for one stream client past which it gets a gap event or is cut (--streamOverflow). */
  streamMaxEvents?: number;
  /** Bytes queued for one stream client past which it gets a gap event or is cut. */
  streamMaxBytes?: number;
  /** Past a stream client's bound: drop and say how many it missed (`gap`), or end its stream (`close`). */
  streamOverflow?: StreamOverflow;
  /** Event streams (SSE and WebSocket) open at once at most; more are refused. */
  streamMaxOpen?: number;
  /** Seconds between the keep-alives of an idle stream (an SSE comment, a WebSocket ping). */
  streamHeartbeat?: number;
  /** With -m: milliseconds between the example events a mocked stream sends. */
  mockEventInterval?: number;
  /**
   * Each operation's `security`: verified (`verify`), checked for presence as Prism does (`presence`), or not at all
   * (`off`). Left out: `-m` checks presence on what it mocks, forwarded calls are not checked.
   */
  auth?: AuthMode;
  /** With --auth verify: issuers (discovery, key sets) on plain HTTP beyond this machine. */
  authAllowHttp?: boolean;
  /** With --auth verify: the `Authorization` header of a verified call is not sent on to the service. */
  authDropCredentials?: boolean;
  /** With --auth verify: seconds at least between two fetches of a key set for tokens naming a key it lacks. */
  authKeyCooldown?: number;
  /** With --auth verify: seconds between the fetches of each key set ahead of use. */
  authKeyRefresh?: number;
  /** With --auth verify: the NATS key-value bucket of the API keys (`restbus-gateway keys` writes it). */
  authKeyBucket?: string;
  /** With --auth verify: JSON, per scheme name, what `x-restbus-jwt` says (issuer, jwksUri, audience …), winning. */
  authSchemes?: string;
  /** The NATS key-value bucket the rate limits' counts are shared in (x-restbus-rate-limit). */
  rateLimitBucket?: string;
  /** When the shared counts do not answer: each gateway counts its share of a limit (`local`), or refuses. */
  rateLimitFallback?: RateLimitFallback;
  /** Comma-separated: direct callers (addresses, CIDR ranges, loopback, uniquelocal …) whose X-Forwarded-For counts. */
  rateLimitTrustedProxies?: string;
  /** Client windows of the rate limits a gateway keeps at most. */
  rateLimitClients?: number;
}

export const RATE_LIMIT_FALLBACKS = ['local', 'refuse'] as const;
export type RateLimitFallback = (typeof RATE_LIMIT_FALLBACKS)[number];

/** `--rateLimitTrustedProxies` as a list. */
export const readTrustedProxies = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((one) => one.trim())
    .filter((one) => one !== '');

export const STREAM_OVERFLOW_POLICIES = ['gap', 'close'] as const;
export type StreamOverflow = (typeof STREAM_OVERFLOW_POLICIES)[number];

export const REPLY_CHECK_MODES = ['off', 'report', 'enforce'] as const;
export type ReplyCheckMode = (typeof REPLY_CHECK_MODES)[number];

/** The largest body limit accepted; the gateway also stays below the server's max_payload (see start-gateway). */
export const MAX_BODY_LIMIT = 64 * 1024 * 1024;
/** easer's: 1 MiB, which is also NATS's own max_payload. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export const gatewayProgram: ProgramSpec = {
  name: 'restbus-gateway',
  version: readPackageVersion(__dirname),
  description:
    'Serves the endpoints of an OpenAPI file and, with -u, forwards every call over NATS. restbus-gateway keys --help: the API keys --auth verify accepts.',
  settings: [
    {
      key: 'restApiPath',
      flags: '-r, --restApiPath <path...>',
      env: 'GATEWAY_API_PATH',
      description: 'OpenAPI files (YAML or JSON) to serve; repeat -r for several',
      schema: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
      required: true,
    },
    {
      key: 'port',
      flags: '-p, --port <port>',
      env: 'GATEWAY_PORT',
      description: 'HTTP port',
      schema: { type: 'integer', minimum: 0, maximum: 65535, default: 3007 },
    },
    ...natsConnectionSettings,
    topicPrefixSetting,
    inboxPrefixSetting,
    {
      key: 'useMessaging',
      flags: '-u, --useMessaging',
      env: 'GATEWAY_FORWARD',
      description: 'forward calls over NATS (otherwise every endpoint answers 501)',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'timeout',
      flags: '--timeout <ms>',
      env: 'GATEWAY_TIMEOUT_MS',
      description: 'how long to wait for a reply before answering 504',
      schema: { type: 'integer', minimum: 1, maximum: 600000, default: 2000 },
    },
    {
      key: 'basePath',
      flags: '-b, --basePath <path>',
      env: 'GATEWAY_BASE_PATH',
      description: 'prefix under which the endpoints are served',
      schema: { type: 'string', pattern: '^/', default: '/' },
    },
    {
      key: 'staticContentBasePath',
      flags: '--staticContentBasePath <dir>',
      aliases: ['--static-content-base-path'],
      env: 'WEBSERVER_STATIC_CONTENT_BASEPATH',
      description: "folder that x-static operations' contentPaths are relative to (easer's setting)",
      defaultText: 'the working directory',
      schema: { type: 'string', minLength: 1, default: '.' },
    },
    {
      key: 'bodyLimit',
      flags: '--bodyLimit <bytes>',
      env: 'GATEWAY_BODY_LIMIT',
      description: 'largest request body accepted (413 above); lowered to stay below the NATS max_payload',
      schema: { type: 'integer', minimum: 0, maximum: MAX_BODY_LIMIT, default: DEFAULT_BODY_LIMIT },
    },
    logLevelSetting,
    logFormatSetting,
    {
      key: 'cors',
      flags: '--cors <origins>',
      env: 'GATEWAY_CORS',
      description: 'comma-separated origins allowed by CORS, or * for any',
      schema: { type: 'string', minLength: 1 },
    },
    {
      key: 'validate',
      flags: '--validate',
      env: 'GATEWAY_VALIDATE',
      description: 'check parameters and JSON bodies against the API description before forwarding (400 otherwise)',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'validateUnchecked',
      flags: '--validateUnchecked <operation...>',
      aliases: ['--validate-unchecked'],
      env: 'GATEWAY_VALIDATE_UNCHECKED',
      description:
        'with --validate, serve these operations (operationId, or "METHOD /path" as written) unchecked when their schemas cannot be compiled; otherwise such an operation stops the gateway at start',
      schema: { type: 'array', items: { type: 'string', minLength: 1 } },
    },
    {
      key: 'validateReplies',
      flags: '--validateReplies <mode>',
      aliases: ['--validate-replies'],
      env: 'GATEWAY_VALIDATE_REPLIES',
      description:
        "check each forwarded reply against its operation (status, content type, required headers, JSON body): off; report (the reply goes out with Prism's sl-violations header, a log line and a metric per violation); enforce (a bad reply is answered 502 REPLY_INVALID)",
      schema: { enum: [...REPLY_CHECK_MODES], default: 'off' },
    },
    {
      key: 'validateRepliesSample',
      flags: '--validateRepliesSample <n>',
      aliases: ['--validate-replies-sample'],
      env: 'GATEWAY_VALIDATE_REPLIES_SAMPLE',
      description: 'with --validateReplies, the fraction of replies checked, from 0 to 1 (1: every reply)',
      schema: { type: 'number', minimum: 0, maximum: 1, default: 1 },
    },
    {
      key: 'enableMocking',
      flags: '-m, --enableMocking',
      env: 'GATEWAY_ENABLE_MOCKING',
      description:
        'answer as the API description says (status, media type, example or schema, headers, security): always without -u, with -u when no service is there (GET, HEAD, OPTIONS, TRACE only, see --mockWrites)',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'mockWrites',
      flags: '--mockWrites',
      aliases: ['--mock-writes'],
      env: 'GATEWAY_MOCK_WRITES',
      description:
        'with -u -m, mock POST, PUT, PATCH and DELETE too when no service is there (otherwise they answer 503: a mocked write would confirm one that never happened)',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'auth',
      flags: '--auth <mode>',
      env: 'GATEWAY_AUTH',
      description:
        "each operation's OpenAPI security: verify (JWTs of the scheme's issuer: openIdConnect by discovery, oauth2 and http bearer by x-restbus-jwt), presence (credentials must be there, as Prism checks), or off; left out, -m checks presence on what it mocks and forwarded calls are not checked",
      schema: { enum: [...AUTH_MODES] },
    },
    {
      key: 'authAllowHttp',
      flags: '--authAllowHttp',
      aliases: ['--auth-allow-http'],
      env: 'GATEWAY_AUTH_ALLOW_HTTP',
      description:
        'with --auth verify, fetch discovery documents and key sets over plain HTTP from hosts other than this machine (https only otherwise)',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'authDropCredentials',
      flags: '--authDropCredentials',
      aliases: ['--auth-drop-credentials'],
      env: 'GATEWAY_AUTH_DROP_CREDENTIALS',
      description:
        'with --auth verify, keep the Authorization header of a verified call at the gateway (the service reads who called at request.user)',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'authKeyCooldown',
      flags: '--authKeyCooldown <seconds>',
      aliases: ['--auth-key-cooldown'],
      env: 'GATEWAY_AUTH_KEY_COOLDOWN_S',
      description:
        "with --auth verify, a token naming a key the issuer's set lacks fetches the set again, at most once in this many seconds (a flood of made-up key ids cannot hammer the issuer)",
      schema: { type: 'integer', minimum: 1, maximum: 3600, default: 30 },
    },
    {
      key: 'authKeyRefresh',
      flags: '--authKeyRefresh <seconds>',
      aliases: ['--auth-key-refresh'],
      env: 'GATEWAY_AUTH_KEY_REFRESH_S',
      description: "with --auth verify, seconds between the fetches of each issuer's key set ahead of use",
      schema: { type: 'integer', minimum: 10, maximum: 86400, default: 600 },
    },
    authKeyBucketSetting,
    {
      key: 'rateLimitBucket',
      flags: '--rateLimitBucket <bucket>',
      aliases: ['--rate-limit-bucket'],
      env: 'GATEWAY_RATE_LIMIT_BUCKET',
      description: 'with -u, the NATS key-value bucket where every gateway keeps the counts of the rate limits',
      schema: { type: 'string', pattern: '^[-_A-Za-z0-9]{1,64}$', default: 'restbus_rate_limits' },
    },
    {
      key: 'rateLimitFallback',
      flags: '--rateLimitFallback <mode>',
      aliases: ['--rate-limit-fallback'],
      env: 'GATEWAY_RATE_LIMIT_FALLBACK',
      description:
        "when the shared counts of the rate limits do not answer (NATS away): 'local' admits each gateway's share of a limit on its own count, 'refuse' answers 503 RATE_LIMIT_UNAVAILABLE",
      schema: { type: 'string', enum: [...RATE_LIMIT_FALLBACKS], default: 'local' },
    },
    {
      key: 'rateLimitTrustedProxies',
      flags: '--rateLimitTrustedProxies <list>',
      aliases: ['--rate-limit-trusted-proxies'],
      env: 'GATEWAY_RATE_LIMIT_TRUSTED_PROXIES',
      description:
        "comma-separated addresses, CIDR ranges or names (loopback, linklocal, uniquelocal) of the proxies in front of the gateway: a rate limit by address reads the client's from their X-Forwarded-For",
      schema: { type: 'string', maxLength: 4096 },
      check: (value) => {
        try {
          proxyAddr.compile(readTrustedProxies(String(value)));
          return undefined;
        } catch (err) {
          return readErrorMessage(err);
        }
      },
    },
    {
      key: 'rateLimitClients',
      flags: '--rateLimitClients <count>',
      aliases: ['--rate-limit-clients'],
      env: 'GATEWAY_RATE_LIMIT_CLIENTS',
      description: 'clients of the rate limits a gateway keeps count of at most (the ones seen longest ago go first)',
      schema: { type: 'integer', minimum: 100, maximum: 10_000_000, default: 100_000 },
    },
    {
      key: 'authSchemes',
      flags: '--authSchemes <json>',
      aliases: ['--auth-schemes'],
      env: 'GATEWAY_AUTH_SCHEMES',
      description:
        'with --auth verify, JSON keyed by security scheme name: what x-restbus-jwt says of it (issuer, jwksUri, audience, scopesClaim, claims), for deployments that keep it out of the contract; wins field by field',
      schema: { type: 'string', minLength: 2, maxLength: 1024 * 1024 },
      check: (value) => {
        const read = readAuthSchemes(String(value));
        return read.ok ? undefined : read.problem;
      },
    },
    {
      key: 'useCompression',
      flags: '-s, --useCompression',
      env: 'GATEWAY_USE_COMPRESSION',
      description: 'compress response bodies (gzip, deflate or br, as the client accepts)',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'dumpConfig',
      flags: '-d, --dumpConfig',
      env: 'GATEWAY_DUMP_CONFIG',
      description: 'print the effective configuration (credentials left out) on standard output at start',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'parseRaw',
      flags: '--parseRaw',
      description: "easer's default body parser, always in effect: the exact body text is forwarded",
      schema: { type: 'boolean', default: true },
    },
    {
      key: 'allowOutsideRefs',
      flags: '--allowOutsideRefs',
      env: 'GATEWAY_ALLOW_OUTSIDE_REFS',
      description: "let $refs read local files outside the API file's folder (refused by default)",
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'strict',
      flags: '--strict',
      env: 'GATEWAY_STRICT',
      description:
        'refuse an API description with warnings too (missing descriptions, unknown keywords, examples off their schema)',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'lintCache',
      flags: '--lintCache <dir>',
      env: 'GATEWAY_LINT_CACHE',
      description:
        "where the lint's warnings of files linted before are kept, so that a restart or reload does not lint them " +
        "again: a folder only this user may write, or off (left out: restbus-lint-<uid> in the system's temporary folder)",
      schema: { type: 'string', minLength: 1, maxLength: 4096 },
    },
    {
      key: 'check',
      flags: '--check',
      description: 'print the problems of the -r files, a line each, and exit: 0 when they can be served, 1 when not',
      schema: { type: 'boolean', default: false },
    },
    ...createHttpLimitSettings('GATEWAY'),
    {
      key: 'useWebsocket',
      flags: '-w, --useWebsocket',
      env: 'EASER_USE_WEBSOCKET',
      description:
        "easer's WebSocket gateway: a socket.io 4 server on the same port at /socket.io/, relaying the -i and -o subjects (connects to NATS even without -u)",
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'inbound',
      flags: '-i, --inbound <subjects>',
      env: 'WSGW_INBOUND_TOPICS',
      description:
        'with -w, comma-separated NATS subjects (wildcards allowed) whose messages go to every socket.io client as the event named by the subject',
      schema: { type: 'string' },
      check: checkSubjectList({ wildcards: true }),
    },
    {
      key: 'outbound',
      flags: '-o, --outbound <subjects>',
      env: 'WSGW_OUTBOUND_TOPICS',
      description:
        'with -w, comma-separated NATS subjects a socket.io client publishes to by emitting the event of that name (acknowledged with true)',
      schema: { type: 'string' },
      check: checkSubjectList({ wildcards: false }),
    },
    {
      key: 'wsBufferLimit',
      flags: '--wsBufferLimit <bytes>',
      aliases: ['--ws-buffer-limit'],
      env: 'GATEWAY_WS_BUFFER_LIMIT',
      description:
        'with -w, the bytes queued for one socket.io client (not yet taken by its connection) past which it is disconnected',
      schema: { type: 'integer', minimum: 1024, maximum: 1024 * 1024 * 1024, default: 4 * 1024 * 1024 },
    },
    {
      key: 'streamMaxEvents',
      flags: '--streamMaxEvents <n>',
      aliases: ['--stream-max-events'],
      env: 'GATEWAY_STREAM_MAX_EVENTS',
      description:
        'events queued for one stream client (SSE or WebSocket) that reads slowly, at most (see --streamOverflow)',
      schema: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 1000 },
    },
    {
      key: 'streamMaxBytes',
      flags: '--streamMaxBytes <bytes>',
      aliases: ['--stream-max-bytes'],
      env: 'GATEWAY_STREAM_MAX_BYTES',
      description: 'bytes queued for one stream client that reads slowly, at most (see --streamOverflow)',
      schema: { type: 'integer', minimum: 1024, maximum: 1024 * 1024 * 1024, default: 1024 * 1024 },
    },
    {
      key: 'streamOverflow',
      flags: '--streamOverflow <policy>',
      aliases: ['--stream-overflow'],
      env: 'GATEWAY_STREAM_OVERFLOW',
      description:
        'what a stream client past its bound gets: gap (the events are dropped, then a gap event says how many) or close (its stream ends)',
      schema: { enum: [...STREAM_OVERFLOW_POLICIES], default: 'gap' },
    },
    {
      key: 'streamMaxOpen',
      flags: '--streamMaxOpen <n>',
      aliases: ['--stream-max-open'],
      env: 'GATEWAY_STREAM_MAX_OPEN',
      description: 'event streams open at once at most; more are refused with Retry-After',
      schema: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 10_000 },
    },
    {
      key: 'streamHeartbeat',
      flags: '--streamHeartbeat <seconds>',
      aliases: ['--stream-heartbeat'],
      env: 'GATEWAY_STREAM_HEARTBEAT_S',
      description: 'seconds between the keep-alives of an idle stream (an SSE comment, a WebSocket ping)',
      schema: { type: 'integer', minimum: 1, maximum: 3600, default: 15 },
    },
    {
      key: 'mockEventInterval',
      flags: '--mockEventInterval <ms>',
      aliases: ['--mock-event-interval'],
      env: 'GATEWAY_MOCK_EVENT_INTERVAL_MS',
      description: "with -m, milliseconds between the events a mocked stream sends (its operation's examples)",
      schema: { type: 'integer', minimum: 1, maximum: 3_600_000, default: 1000 },
    },
  ],
  // easer's flags that restbus does not take, each with the reason and what to do instead.
  declined: [
    {
      flags: '-c, --config <file>',
      why: 'restbus-gateway takes its settings from flags and environment variables only (see --help)',
    },
    { flags: '-t <format>', why: "use --log-format pretty|json (easer's plainText is pretty)" },
    ...['--parseJson', '--parseXml', '--parseUrlencoded'].map((flags) => ({
      flags,
      why: "the gateway forwards the exact body text (easer's default, --parseRaw) and the service parses it; restbus services also read the parsed bodies easer sent",
    })),
  ],
};
