import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Basic authentication against the project's `loginCredentials`, compared in constant time. */
export function createLoginCheck(credentials: { user: string; pass: string }): (req: Request) => boolean {
  const expected = digest(`${credentials.user}:${credentials.pass}`);
  return (req) => {
    const header = req.headers.authorization;
    if (!header || !/^basic /i.test(header)) return false;
    const given = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    return timingSafeEqual(digest(given), expected);
  };
}

/**
 * Whether a (normalised) path is one of `openPaths`, answered without login: a prefix matched at a segment
 * boundary (`/rest/monitoring` opens `/rest/monitoring/isAlive`, not `/rest/monitoringX`), without regard to case
 * (the services match paths that way too).
 */
export function createOpenPathCheck(openPaths: unknown): (path: string) => boolean {
  const prefixes = (Array.isArray(openPaths) ? openPaths : [])
    .filter((prefix): prefix is string => typeof prefix === 'string')
    .map((prefix) => prefix.replace(/\/+$/, '').toLowerCase());
  if (prefixes.length === 0) return () => false;
  return (path) => {
    const folded = path.toLowerCase();
    return prefixes.some((prefix) => folded === prefix || folded.startsWith(`${prefix}/`) || prefix === '');
  };
}
