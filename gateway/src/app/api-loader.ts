import type { Logger } from '@restbus/infra';
import { createSourceLocator, type Diagnostic } from '@restbus/openapi';
import type { GatewayConfig } from '../config';
import { reportDiagnostics } from '../openapi/report-diagnostics';
import { assertServable, readApis, type LoadedApis, type LoadOptions } from '../openapi/load-api';
import type { ApiLinter } from '../openapi/create-api-linter';
import type { ApiEndpoint } from '../openapi/endpoint';
import type { ReplyChecker } from '../replies/create-reply-checks';
import { compileRateLimits } from '../rate-limits/compile-rate-limits';
import type { RateLimits } from '../rate-limits/rate-limits';
import { chainPolicies } from '../security/chain-policies';
import { compileSecurity, type CompiledSecurity } from '../security/compile-security';
import type { VerifySettings } from '../security/compile-verified-security';

/** A load's endpoints, and the warnings found after them. */
export interface LoadedEndpoints {
  endpoints: ApiEndpoint[];
  checkers: ReadonlyMap<ApiEndpoint, ReplyChecker>;
  /**
   * The endpoints' policies (--auth's security, then the rate limits), and what runs beside them (the issuers' key
   * sets, the census of the gateways sharing the limits).
   */
  security: CompiledSecurity;
  /** The warnings left to say once the endpoints serve: none unless the load was told to serve first. */
  later: Promise<Diagnostic[]>;
}

export interface ApiLoaderOptions {
  config: Readonly<GatewayConfig>;
  linter: ApiLinter;
  security: VerifySettings;
  /** What the rate limits count with, for the gateway's life. */
  rateLimits: RateLimits;
  logger: Logger;
}

// Loaded when a mode needs them, not at every start: the reply checks' compilers (-m's warnings, --validateReplies)
// and -m's warnings.
const loadReplyChecks = (): typeof import('../replies/create-reply-checks') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the modes that use it
  require('../replies/create-reply-checks') as typeof import('../replies/create-reply-checks');
const loadMockWarnings = (): typeof import('../mock/find-mock-warnings') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the modes that use it
  require('../mock/find-mock-warnings') as typeof import('../mock/find-mock-warnings');
const loadExampleWarnings = (): typeof import('../replies/find-example-warnings') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the modes that use it
  require('../replies/find-example-warnings') as typeof import('../replies/find-example-warnings');

/**
 * The gateway's loads of its API files, at start and on each reload: read, checked, routed, their reply checks and
 * security compiled. Once stopped, warnings found later are neither looked for nor said.
 */
export class ApiLoader {
  private readonly config: Readonly<GatewayConfig>;
  private readonly options: LoadOptions;
  private readonly security: VerifySettings;
  private readonly rateLimits: RateLimits;
  private readonly logger: Logger;
  private readonly checkReplies: boolean;
  private stopped = false;

  constructor(options: ApiLoaderOptions) {
    const { config } = options;
    this.config = config;
    this.options = {
      allowOutsideRefs: config.allowOutsideRefs,
      strict: config.strict,
      topicPrefix: config.topicPrefix,
      linter: options.linter,
    };
    this.security = options.security;
    this.rateLimits = options.rateLimits;
    this.logger = options.logger;
    this.checkReplies = config.useMessaging && (config.validateReplies ?? 'off') !== 'off';
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * One load of the files. With `serveFirst` (the start, without --strict) it resolves as soon as the endpoints are
   * known and routable, and `later` brings the warnings that take long to find; otherwise they are all said first
   * (a reload: the old endpoints serve meanwhile; --strict: a warning refuses). A load with errors says every
   * warning before it refuses, as ever.
   */
  async load(serveFirst: boolean): Promise<LoadedEndpoints> {
    const { config, logger } = this;
    const loaded = await readApis(config.restApiPath, { ...this.options, deferLint: serveFirst && !config.strict });
    const failed = loaded.diagnostics.some(({ severity }) => severity === 'error');
    // The reply checks, compiled once a load, now when calls need them (--validateReplies).
    const compiled = this.checkReplies ? loadReplyChecks().createReplyChecks(loaded.endpoints) : undefined;
    const later =
      serveFirst && !config.strict && !failed
        ? this.findLaterWarnings(loaded, compiled).catch((err: unknown) => {
            if (!this.stopped) logger.error({ err }, 'the API could not be checked for warnings');
            return [];
          })
        : undefined;
    if (!later) loaded.diagnostics.push(...(await this.findLaterWarnings(loaded, compiled)));
    // Said once per load: at start and on each reload, never per request.
    // Fatal ones are the error's message instead (--strict makes warnings fatal).
    reportDiagnostics(config.strict ? [] : loaded.diagnostics.filter(({ severity }) => severity === 'warning'), logger);
    const endpoints = assertServable(loaded, config.strict);
    for (const reason of compiled?.skipped ?? []) logger.warn({ reason }, 'replies of an operation are not checked');
    const locate = createSourceLocator();
    const compiledSecurity = await compileSecurity(endpoints, config.auth, this.security, locate);
    const limits = await compileRateLimits(endpoints, this.rateLimits.parts, locate);
    const security: CompiledSecurity = {
      // Security first: a limit by subject counts the subject it verified, and a refused call counts for no limit.
      policies: chainPolicies(compiledSecurity.policies, limits),
      start: () => {
        compiledSecurity.start();
        if (limits.size > 0) this.rateLimits.start();
      },
      stop: () => compiledSecurity.stop(),
    };
    return { endpoints, checkers: compiled?.checkers ?? new Map(), security, later: later ?? Promise.resolve([]) };
  }

  /**
   * The warnings that take long to find: the lint's (when deferred), then what -m could not answer as described (a
   * sample past its bound, a header HTTP cannot carry, an example its schema refuses, unless the lint said so).
   */
  private async findLaterWarnings(
    loaded: LoadedApis,
    compiled: { checkers: ReadonlyMap<ApiEndpoint, ReplyChecker> } | undefined,
  ): Promise<Diagnostic[]> {
    const found = loaded.lint ? await loaded.lint : [];
    if (!this.config.enableMocking || loaded.endpoints.length === 0 || this.stopped) return found;
    const locate = createSourceLocator();
    const { findMockWarnings } = loadMockWarnings();
    found.push(...(await findMockWarnings(loaded.endpoints, { locate })));
    // The reply checks compile the same schemas -m's examples are checked against.
    const { checkers } = compiled ?? loadReplyChecks().createReplyChecks(loaded.endpoints);
    const { findExampleWarnings } = loadExampleWarnings();
    const known = [...loaded.diagnostics, ...found];
    found.push(...(await findExampleWarnings(loaded.endpoints, checkers, { locate, known })));
    return found;
  }
}
