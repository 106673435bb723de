import Ajv from 'ajv';
import type { Logger } from '@restbus/infra';
import type { ApiSecurityScheme, SourceLocator } from '@restbus/openapi';
import type { ApiEndpoint } from '../openapi/endpoint';
import { refuseLoad } from '../openapi/refuse-load';
import { ApiKeyCheck, type ApiKeyPlace } from './api-key-check';
import type { ApiKeyStore } from './api-keys/api-key-store';
import { BearerCheck } from './bearer-check';
import type { CallPolicy } from './call-policy';
import { describeUnusableIssuerUrl, DEFAULT_ISSUER_FETCH_LIMITS, type IssuerFetchLimits } from './fetch-issuer-json';
import { IssuerKeys, type IssuerKeyTiming, type IssuerSource } from './issuer-keys';
import { loadJose } from './jose';
import { JWT_EXTENSION, jwtExtensionSchema, type JwtExtension } from './jwt-extension';
import type { AuthSchemeSettings } from './read-auth-schemes';
import { JwtVerifier } from './jwt-verifier';
import type { SchemeCheck } from './scheme-check';
import { SecurityPolicy, type Requirement } from './security-policy';
import { VerifiedTokens, DEFAULT_VERIFIED_TOKEN_LIMITS, type VerifiedTokenLimits } from './verified-tokens';

export interface VerifySettings {
  /** Plain-HTTP issuers that are not on this machine (`--authAllowHttp`). */
  allowHttp: boolean;
  logger: Logger;
  /** Tests shorten them; the defaults are the product's. */
  timing?: IssuerKeyTiming;
  fetchLimits?: Omit<IssuerFetchLimits, 'allowHttp'>;
  tokenLimits?: VerifiedTokenLimits;
  /** Counts key-set fetches (the metrics). */
  onKeyFetch?: (outcome: 'ok' | 'failed') => void;
  /** Counts tokens found verified already, or checked anew (the metrics). */
  onTokenLookup?: (result: 'hit' | 'miss') => void;
  /** `--authSchemes`: per scheme name, what wins over the scheme's own `x-restbus-jwt`, field by field. */
  schemes?: AuthSchemeSettings;
  /** The issuers' key sets by source, kept from one load to the next (a reload keeps the last good keys). */
  issuers?: Map<string, IssuerKeys>;
  /** The API key bucket's reader, made on first use; undefined without NATS (no -u). */
  apiKeys?: () => ApiKeyStore | undefined;
}

/** The endpoints' security, compiled for `--auth verify`: a policy per secured endpoint, and the issuers' keys. */
export interface VerifiedSecurity {
  policies: ReadonlyMap<ApiEndpoint, CallPolicy>;
  /** Fetches every issuer's keys now, then ahead of use. */
  start(): void;
  stop(): void;
}

/** A scheme the gateway cannot verify, as the load's error, at the scheme's line. */
interface Unverifiable {
  file: string;
  pointer: Array<string | number>;
  message: string;
}

/** An HTTP token (RFC 9110 §5.6.2): what a header name must be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const isPlace = (where: string): where is ApiKeyPlace['in'] =>
  where === 'header' || where === 'query' || where === 'cookie';

let checkExtension: ((value: unknown) => value is JwtExtension) | undefined;
const compileExtensionCheck = () =>
  (checkExtension ??= new Ajv({ allErrors: true, strict: false }).compile<JwtExtension>(jwtExtensionSchema));

/** `x-restbus-jwt` as declared, or why it cannot be used. */
function readJwtExtension(scheme: ApiSecurityScheme): JwtExtension | string | undefined {
  const value = scheme.extensions[JWT_EXTENSION];
  if (value === undefined) return undefined;
  const check = compileExtensionCheck();
  if (check(value)) return value;
  const [first] = (check as unknown as { errors?: Array<{ instancePath: string; message?: string }> }).errors ?? [];
  return `${JWT_EXTENSION}${first?.instancePath.replaceAll('/', '.') ?? ''} ${first?.message ?? 'is invalid'}`;
}

const audiencesOf = (extension: JwtExtension | undefined): string[] | undefined =>
  extension?.audience === undefined
    ? undefined
    : typeof extension.audience === 'string'
      ? [extension.audience]
      : [...extension.audience];

/**
 * Compiles every secured endpoint's `security` into a SecurityPolicy whose schemes are verified for real: `openIdConnect`
 * by its discovery document, `oauth2` and `http` bearer by their `x-restbus-jwt` issuer and key set. A scheme it
 * cannot verify (an API key, `http` basic, mutual TLS, a bearer scheme without its issuer) refuses the load: every
 * such scheme is named with its file and line. Schemes and issuers are shared by the endpoints that use them.
 */
export async function compileVerifiedSecurity(
  endpoints: readonly ApiEndpoint[],
  settings: VerifySettings,
  locate: SourceLocator,
): Promise<VerifiedSecurity> {
  const jose = loadJose();
  const limits: IssuerFetchLimits = {
    ...DEFAULT_ISSUER_FETCH_LIMITS,
    ...settings.fetchLimits,
    allowHttp: settings.allowHttp,
  };
  const logger = settings.logger.child({ component: 'auth' });
  // Shared with the loads before and after (settings.issuers): a reload keeps each issuer's last good keys.
  const issuers = settings.issuers ?? new Map<string, IssuerKeys>();
  const used = new Set<IssuerKeys>();
  const checks = new Map<string, SchemeCheck | Unverifiable>();
  /** Schemes whose tokens are accepted whatever their audience: said once a load. */
  const anyAudience: string[] = [];
  const issuerKeys = (source: IssuerSource): IssuerKeys => {
    const key = source.kind === 'fixed' ? `${source.location.issuer}\n${source.location.jwksUri}` : source.url;
    let keys = issuers.get(key);
    if (!keys) {
      keys = new IssuerKeys({ source, jose, limits, timing: settings.timing, logger, onFetch: settings.onKeyFetch });
      issuers.set(key, keys);
    }
    used.add(keys);
    return keys;
  };

  const toCheck = (name: string, scheme: ApiSecurityScheme): SchemeCheck | Unverifiable => {
    const { file, pointer } = scheme.source;
    const refuse = (message: string, at: Array<string | number> = pointer): Unverifiable => ({
      file,
      pointer: at,
      message,
    });
    const declared = readJwtExtension(scheme);
    if (typeof declared === 'string') return refuse(declared, [...pointer, JWT_EXTENSION]);
    const set = settings.schemes && Object.hasOwn(settings.schemes, name) ? settings.schemes[name] : undefined;
    const extension: JwtExtension | undefined = declared || set ? { ...declared, ...set } : undefined;
    const bearer = (source: IssuerSource): SchemeCheck => {
      if (audiencesOf(extension) === undefined) anyAudience.push(name);
      const verifier = new JwtVerifier(
        issuerKeys(source),
        { audiences: audiencesOf(extension), scopesClaim: extension?.scopesClaim, claims: extension?.claims ?? [] },
        new VerifiedTokens(settings.tokenLimits ?? DEFAULT_VERIFIED_TOKEN_LIMITS),
        jose,
        logger,
        settings.onTokenLookup,
      );
      return new BearerCheck(name, verifier);
    };
    if (scheme.type === 'openIdConnect') {
      const url = scheme.openIdConnectUrl;
      if (url === undefined) return refuse(`security scheme "${name}" has no openIdConnectUrl to verify its tokens by`);
      const unusable = describeUnusableIssuerUrl(url, settings.allowHttp);
      if (unusable) return refuse(`openIdConnectUrl ${unusable}`, [...pointer, 'openIdConnectUrl']);
      if (extension?.issuer !== undefined || extension?.jwksUri !== undefined) {
        return refuse(
          `${JWT_EXTENSION} of an openIdConnect scheme takes no issuer or jwksUri: they come from its discovery document`,
          [...pointer, JWT_EXTENSION],
        );
      }
      return bearer({ kind: 'discovery', url });
    }
    const isBearer = scheme.type === 'oauth2' || (scheme.type === 'http' && scheme.scheme === 'bearer');
    if (isBearer) {
      if (extension?.issuer === undefined || extension.jwksUri === undefined) {
        return refuse(
          `security scheme "${name}" (${scheme.type}) needs ${JWT_EXTENSION}: {issuer, jwksUri} for the gateway to verify its tokens`,
        );
      }
      const unusable = describeUnusableIssuerUrl(extension.jwksUri, settings.allowHttp);
      if (unusable) return refuse(`jwksUri ${unusable}`, [...pointer, JWT_EXTENSION, 'jwksUri']);
      return bearer({ kind: 'fixed', location: { issuer: extension.issuer, jwksUri: extension.jwksUri } });
    }
    if (scheme.type === 'apiKey') {
      const where = scheme.in ?? 'header';
      if (
        scheme.name === undefined ||
        scheme.name === '' ||
        !isPlace(where) ||
        (where === 'header' && !TOKEN.test(scheme.name))
      ) {
        return refuse(
          `security scheme "${name}" (apiKey) names no header, query parameter or cookie a key can be read from`,
        );
      }
      const keys = settings.apiKeys?.();
      if (!keys) {
        return refuse(
          `security scheme "${name}" (apiKey) is verified against the API keys kept in NATS: it needs -u (--useMessaging)`,
        );
      }
      return new ApiKeyCheck(name, { in: where, name: scheme.name }, keys);
    }
    if (scheme.type === 'basic' || (scheme.type === 'http' && scheme.scheme === 'basic')) {
      return refuse(
        `security scheme "${name}" (http basic) is not verified by the gateway (passwords on every call): use a bearer or apiKey scheme, or --auth presence`,
      );
    }
    const what = scheme.type === 'http' ? `http ${scheme.scheme ?? ''}`.trim() : scheme.type;
    return refuse(`security scheme "${name}" (${what}) cannot be verified by the gateway`);
  };

  const policies = new Map<ApiEndpoint, CallPolicy>();
  const unverifiable: Unverifiable[] = [];
  for (const endpoint of endpoints) {
    const { security, source } = endpoint.model;
    if (security.length === 0) continue;
    const requirements: Requirement[] = [];
    for (const requirement of security) {
      const uses = requirement.map(({ name, scheme, scopes }) => {
        if (!scheme) {
          unverifiable.push({
            file: source.file,
            pointer: [...source.pointer, 'security'],
            message: `security names "${name}", which the document does not declare`,
          });
          return undefined;
        }
        const key = `${scheme.source.file}\n${name}`;
        let check = checks.get(key);
        if (!check) {
          check = toCheck(name, scheme);
          checks.set(key, check);
          if (!('check' in check)) unverifiable.push(check);
        }
        return 'check' in check ? { check, scopes } : undefined;
      });
      requirements.push(uses.filter((use) => use !== undefined));
    }
    policies.set(endpoint, new SecurityPolicy(requirements));
  }
  if (unverifiable.length > 0) {
    throw await refuseLoad('--auth verify cannot verify the security of the API', unverifiable, locate);
  }
  if (anyAudience.length > 0) {
    logger.warn(
      { schemes: anyAudience },
      'these schemes accept a token of their issuer whatever its audience (an ID token issued to another application included): set audience in x-restbus-jwt or --authSchemes',
    );
  }
  const declared = new Set([...checks.keys()].map((key) => key.slice(key.indexOf('\n') + 1)));
  const unknown = Object.keys(settings.schemes ?? {}).filter((name) => !declared.has(name));
  if (unknown.length > 0) {
    logger.warn({ schemes: unknown }, '--authSchemes names schemes no operation uses: check their spelling');
  }
  const usesApiKeys = [...checks.values()].some((check) => check instanceof ApiKeyCheck);
  return {
    policies,
    start: () => {
      used.forEach((keys) => keys.start());
      if (usesApiKeys) settings.apiKeys?.()?.start();
    },
    stop: () => used.forEach((keys) => keys.stop()),
  };
}
