import express, { type Request, type Response } from 'express';
import { isNestedDeeperThan, MAX_JSON_DEPTH, parseJsonInSlices } from '@restbus/infra';

type Middleware = (req: Request, res: Response, next: (err?: unknown) => void) => void;

const run = (middleware: Middleware, req: Request, res: Response): Promise<void> =>
  new Promise((resolve, reject) => middleware(req, res, (err) => (err ? reject(err) : resolve())));

/** Whether a request carries a body at all: most mock traffic is GETs, which should not pay for the parsers. */
export const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

const bodyLengths = new WeakMap<Request, number>();

/** The length of a JSON body's text (0 for other bodies): what bounds the work of checking it. */
export const readBodyLength = (req: Request): number => bodyLengths.get(req) ?? 0;

/** An error as body-parser makes them, so that the app answers it as it answers body-parser's. */
const bodyError = (type: string, message: string): Error => Object.assign(new Error(message), { status: 400, type });

/**
 * JSON bodies as express.json({strict: false}) reads them (an empty one is `{}`), but read as text first and parsed
 * a slice at a time (parseJsonInSlices): JSON.parse alone held the event loop for 100-170 ms on 1 MiB of small
 * nested arrays.
 */
function createJsonParser(limit: number): Middleware {
  const readText = express.text({ limit, type: 'application/json' });
  return (req, res, next) =>
    readText(req, res, (err?: unknown) => {
      if (err || typeof req.body !== 'string') {
        next(err);
        return;
      }
      const text = req.body;
      bodyLengths.set(req, text.length);
      if (isNestedDeeperThan(text, MAX_JSON_DEPTH)) {
        next(bodyError('entity.verify.failed', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`));
        return;
      }
      parseJsonInSlices(text === '' ? '{}' : text).then(
        (value) => {
          req.body = value;
          next();
        },
        (failure: Error) => next(bodyError('entity.parse.failed', failure.message)),
      );
    });
}

/** JSON, urlencoded and text bodies, as upstream's `bodyParser()` read them; other types stay unread. */
export function createBodyParser(limit: number): (req: Request, res: Response) => Promise<void> {
  const parsers: Middleware[] = [
    createJsonParser(limit),
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
