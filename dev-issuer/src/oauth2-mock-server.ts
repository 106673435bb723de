import type * as OAuth2MockServer from 'oauth2-mock-server' with { 'resolution-mode': 'import' };

/**
 * oauth2-mock-server, the one place it is loaded. It ships ES modules only: this CommonJS program loads it with
 * Node's require(esm) (Node 20.19 and later), as the gateway loads jose.
 */
export const loadOAuth2MockServer = (): typeof OAuth2MockServer =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an ES module, loaded with require(esm)
  require('oauth2-mock-server') as typeof OAuth2MockServer;
