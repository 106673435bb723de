import type * as Jose from 'jose' with { 'resolution-mode': 'import' };

/**
 * jose, the one place it is loaded. jose 6 ships ES modules only: the gateway (CommonJS) loads it with Node's
 * require(esm) (Node 20.19 and later), and jest's loader gets it turned into CommonJS (infra/jest/esm-to-cjs.js).
 * Loaded by the first verify-mode start, never by a gateway that verifies nothing.
 */
export const loadJose = (): typeof Jose =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an ES module, loaded by the mode that uses it
  require('jose') as typeof Jose;

export type { Jose };
