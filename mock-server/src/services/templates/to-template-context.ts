import type { Request } from 'express';
import type { TemplateContext } from './compile-mock-template';

/** Names the seed of a rendering's random data; without it the method and URL are the seed. */
export const MOCK_SEED_HEADER = 'x-mock-seed';

/** What a template sees of a request. */
export const toTemplateContext = (req: Request): TemplateContext => ({
  request: {
    method: req.method,
    path: req.path,
    params: req.params,
    query: req.query,
    headers: req.headers,
    // Both typed `any` by express: createMockApp parses the cookies into an object, parseBody the body.
    cookies: req.cookies,
    body: req.body,
  },
});

/** The same request gets the same random data, unless it names a seed of its own. */
export const seedOf = (req: Request): string => {
  const named = req.headers[MOCK_SEED_HEADER];
  return typeof named === 'string' && named !== '' ? named : `${req.method} ${req.originalUrl}`;
};
