import express, { type Request, type Response } from 'express';
import { isNestedDeeperThan, MAX_JSON_DEPTH } from '@restbus/infra';

type Middleware = (req: Request, res: Response, next: (err?: unknown) => void) => void;

const run = (middleware: Middleware, req: Request, res: Response): Promise<void> =>
  new Promise((resolve, reject) => middleware(req, res, (err) => (err ? reject(err) : resolve())));

/** Whether a request carries a body at all: most mock traffic is GETs, which should not pay for the parsers. */
export const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** JSON, urlencoded and text bodies, as upstream's `bodyParser()` read them; other types stay unread. */
export function createBodyParser(limit: number): (req: Request, res: Response) => Promise<void> {
  const parsers: Middleware[] = [
    express.json({
      limit,
      strict: false,
      verify: (_req, _res, bytes) => {
        if (isNestedDeeperThan(bytes, MAX_JSON_DEPTH)) {
          throw new Error(`the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`);
        }
      },
    }),
    express.urlencoded({ limit, extended: false }),
    express.text({ limit, type: 'text/*' }),
  ];
  return async (req, res) => {
    for (const parser of parsers) await run(parser, req, res);
  };
}

const OVERRIDABLE = new Set(['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS']);

/**
 * Method override for clients that can only POST: the `X-HTTP-Method-Override` header or a `_method` body field
 * (what upstream's methodOverride read). Only a POST is overridden, as in express's method-override.
 */
export function overrideMethod(req: Request): boolean {
  if (req.method !== 'POST') return false;
  const header = req.headers['x-http-method-override'];
  const field = (req.body as Record<string, unknown> | undefined)?._method;
  const wanted = typeof header === 'string' ? header : typeof field === 'string' ? field : undefined;
  if (!wanted || !OVERRIDABLE.has(wanted.toUpperCase()) || wanted.toUpperCase() === 'POST') return false;
  req.method = wanted.toUpperCase();
  return true;
}
