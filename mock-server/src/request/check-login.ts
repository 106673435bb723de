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
