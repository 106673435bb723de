import type { Request } from 'express';
import type { TemplateContext } from './compile-mock-template';

/** Names the seed of a rendering's random data; without it the method and URL are the seed. */
export const MOCK_SEED_HEADER = 'x-mock-seed';

/** What a template sees of a request. */
export const toTemplateContext = (req: Request): TemplateContext => ({
  request: {
    method: req.method,
    path: req.path,
    params: req.params as Record<string, string>,
    query: req.query,
    headers: req.headers,
    cookies: req.cookies as Record<string, unknown>,
    body: req.body as unknown,
  },
});

/** The same request gets the same random data, unless it names a seed of its own. */
export const seedOf = (req: Request): string => {
  const named = req.headers[MOCK_SEED_HEADER];
  return typeof named === 'string' && named !== '' ? named : `${req.method} ${req.originalUrl}`;
};
