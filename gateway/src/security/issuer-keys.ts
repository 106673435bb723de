import { RestbusError, type Logger } from '@restbus/infra';
import type { Jose } from './jose';
import { fetchIssuerJson, type IssuerFetchLimits } from './fetch-issuer-json';

/** Where an issuer's keys are, and the `iss` its tokens carry. */
export interface IssuerLocation {
  issuer: string;
  jwksUri: string;
}

/** How an issuer is found: named outright (`x-restbus-jwt`), or by its OpenID Connect discovery document. */
export type IssuerSource = { kind: 'fixed'; location: IssuerLocation } | { kind: 'discovery'; url: string };

export interface IssuerKeyTiming {
  /** After a token names a key the set does not have, the set is fetched again at most this often (ms). */
  cooldownMs: number;
  /** While no key set was ever fetched, a call tries again at most this often (ms). */
  retryMs: number;
  /** The set is fetched again this often ahead of use, so that a new key is known before tokens use it (ms). */
  refreshMs: number;
}

export const DEFAULT_ISSUER_KEY_TIMING: IssuerKeyTiming = {
  cooldownMs: 30_000,
  retryMs: 1000,
  refreshMs: 10 * 60_000,
};

export interface IssuerKeysOptions {
  source: IssuerSource;
  jose: typeof Jose;
  limits: IssuerFetchLimits;
  timing?: IssuerKeyTiming;
  logger: Logger;
  now?: () => number;
  /** Called for each fetch of a key set, with how it went (the metrics count them). */
  onFetch?: (outcome: 'ok' | 'failed') => void;
}

type KeySelector = ReturnType<typeof Jose.createLocalJWKSet>;

/** The keys in use: the last set fetched well. */
interface KnownKeys {
  issuer: string;
  select: KeySelector;
  fetchedAt: number;
}

const isString = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The discovery document's issuer and key set URL. OpenID Connect Discovery §4.3: the issuer it names must be the
 * URL it was fetched under (less `/.well-known/openid-configuration`), or another issuer could stand in for it.
 */
function readDiscovery(url: string, document: unknown): IssuerLocation {
  const fields = typeof document === 'object' && document !== null ? (document as Record<string, unknown>) : {};
  const { issuer, jwks_uri: jwksUri } = fields;
  if (!isString(issuer) || !isString(jwksUri)) {
    throw new RestbusError('AUTH_UNAVAILABLE', `${url}: the discovery document names no issuer or jwks_uri`);
  }
  const expected = url.replace(/\/\.well-known\/openid-configuration$/, '');
  if (issuer.replace(/\/$/, '') !== expected.replace(/\/$/, '')) {
    throw new RestbusError('AUTH_UNAVAILABLE', `${url}: the discovery document names another issuer (${issuer})`);
  }
  return { issuer, jwksUri };
}

/**
 * One issuer's signing keys, as a JWT check asks for them (`getKey`): the last set fetched well, by `kid`. Rotation
 * needs nobody: the set is fetched again ahead of use (`refreshMs`), and when a token names a key the set lacks (at
 * most once per `cooldownMs`, so that a flood of made-up `kid`s cannot hammer the issuer). While the issuer cannot
 * be reached the last good set stays in use. Fetches are shared: calls waiting for the same set wait for one fetch.
 */
export class IssuerKeys {
  private known?: KnownKeys;
  private loading?: Promise<void>;
  private lastAttemptAt = -Infinity;
  private lastFailure?: RestbusError;
  private refreshTimer?: NodeJS.Timeout;
  private readonly timing: IssuerKeyTiming;
  private readonly now: () => number;

  constructor(private readonly options: IssuerKeysOptions) {
    this.timing = options.timing ?? DEFAULT_ISSUER_KEY_TIMING;
    this.now = options.now ?? Date.now;
  }

  /** Fetches the set now and then every `refreshMs`, in the background; failures are logged, never thrown. */
  start(): void {
    void this.load().catch(() => undefined);
    this.refreshTimer ??= setInterval(() => void this.load().catch(() => undefined), this.timing.refreshMs);
    this.refreshTimer.unref();
  }

  stop(): void {
    clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  /**
   * The keys in use, fetched first if none ever were (at most once per `retryMs`, shared by the calls waiting).
   * Rejects with AUTH_UNAVAILABLE while no set was ever fetched.
   */
  async current(): Promise<{ issuer: string }> {
    if (!this.known && (this.loading || this.now() - this.lastAttemptAt >= this.timing.retryMs)) {
      await this.load().catch(() => undefined);
    }
    if (!this.known)
      throw this.lastFailure ?? new RestbusError('AUTH_UNAVAILABLE', 'the issuer keys are not known yet');
    return this.known;
  }

  /**
   * The key a token's header names, as jose's jwtVerify asks for it; when the set has no such key, it is fetched
   * again if the cooldown allows, else jose's own error.
   */
  readonly getKey = async (header: Jose.JWSHeaderParameters, token: Jose.FlattenedJWSInput) => {
    await this.current();
    const known = this.known!;
    try {
      return await known.select(header, token);
    } catch (err) {
      const unknownKey = err instanceof this.options.jose.errors.JWKSNoMatchingKey;
      if (!unknownKey || !(this.loading || this.now() - this.lastAttemptAt >= this.timing.cooldownMs)) throw err;
      await this.load().catch(() => undefined);
      // The set could not be fetched again: whether the key is new cannot be told, so the token cannot be checked.
      if (this.lastFailure) throw this.lastFailure;
      if (!this.known || this.known === known) throw err;
      return this.known.select(header, token);
    }
  };

  /** Fetches discovery (if any) and the key set; one fetch at a time, joined by whoever asks meanwhile. */
  private load(): Promise<void> {
    this.loading ??= this.fetchKeys().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async fetchKeys(): Promise<void> {
    const { source, limits, jose, logger } = this.options;
    this.lastAttemptAt = this.now();
    try {
      const location =
        source.kind === 'fixed'
          ? source.location
          : readDiscovery(source.url, await fetchIssuerJson(source.url, limits));
      const set = await fetchIssuerJson(location.jwksUri, limits);
      let select: KeySelector;
      try {
        select = jose.createLocalJWKSet(set as Jose.JSONWebKeySet);
      } catch (err) {
        throw new RestbusError('AUTH_UNAVAILABLE', `${location.jwksUri}: not a JWK set`, { cause: err });
      }
      this.known = { issuer: location.issuer, select, fetchedAt: this.now() };
      this.lastFailure = undefined;
      this.options.onFetch?.('ok');
    } catch (err) {
      const failure =
        err instanceof RestbusError
          ? err
          : new RestbusError('AUTH_UNAVAILABLE', 'the issuer keys could not be fetched', { cause: err });
      this.lastFailure = new RestbusError('AUTH_UNAVAILABLE', 'the credentials cannot be checked just now', {
        headers: { 'retry-after': String(Math.ceil(this.timing.retryMs / 1000)) },
        cause: failure,
      });
      this.options.onFetch?.('failed');
      logger.warn(
        { err: failure, keptKeysFrom: this.known ? new Date(this.known.fetchedAt).toISOString() : undefined },
        this.known
          ? 'the issuer keys could not be fetched again: the last ones stay in use'
          : 'the issuer keys could not be fetched',
      );
      throw this.lastFailure;
    }
  }
}
