import type { Dialect } from './api-model';

/**
 * `2.0`, `3.0` or `3.1` (3.2 and later minor versions are read as 3.1), or undefined for anything else: what the
 * document's `swagger` or `openapi` field says, a number written unquoted (`swagger: 2.0`) read as its text.
 */
export function detectDialect(document: Readonly<Record<string, unknown>>): Dialect | undefined {
  if (document.swagger !== undefined)
    return String(document.swagger) === '2.0' || document.swagger === 2 ? '2.0' : undefined;
  if (document.openapi === undefined) return undefined;
  const version = String(document.openapi);
  if (/^3(\.0(\.|$)|$)/.test(version)) return '3.0';
  return /^3\.[1-9]/.test(version) ? '3.1' : undefined;
}
