import type { Logger } from '@restbus/infra';
import type { GatewayConfig } from '../config';
import type { GatewayMetrics } from '../observability/create-metrics';
import type { ApiKeyStore } from '../security/api-keys/api-key-store';
import type { VerifySettings } from '../security/compile-verified-security';
import { DEFAULT_ISSUER_KEY_TIMING } from '../security/issuer-keys';
import { readAuthSchemes, type AuthSchemeSettings } from '../security/read-auth-schemes';

/** `--authSchemes` as the load takes it; its text was checked with the other settings (loadConfig). */
function readAuthSchemeSetting(text: string | undefined): AuthSchemeSettings | undefined {
  if (text === undefined) return undefined;
  const read = readAuthSchemes(text);
  return read.ok ? read.schemes : undefined;
}

/** What every load's security verifies with (--auth verify): the settings, the key timing, the metrics it feeds. */
export function createSecuritySettings(
  config: Readonly<GatewayConfig>,
  metrics: GatewayMetrics,
  logger: Logger,
  apiKeys: () => ApiKeyStore | undefined,
): VerifySettings {
  return {
    allowHttp: config.authAllowHttp === true,
    issuers: new Map(),
    schemes: readAuthSchemeSetting(config.authSchemes),
    timing: {
      ...DEFAULT_ISSUER_KEY_TIMING,
      cooldownMs: (config.authKeyCooldown ?? 30) * 1000,
      refreshMs: (config.authKeyRefresh ?? 600) * 1000,
    },
    logger,
    onKeyFetch: (outcome) => metrics.keySetFetched(outcome),
    onTokenLookup: (result) => metrics.tokenLookup(result),
    apiKeys,
  };
}
