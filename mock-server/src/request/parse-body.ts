import express, { type Request, type Response } from 'express';
import {
  isJsonMediaType,
  isJsonObject,
  isNestedDeeperThan,
  MAX_JSON_DEPTH,
  parseJsonInSlices,
  refuseRequest,
} from '@restbus/infra';

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

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * body-parser's failures as the mistakes of the shared table (REQUEST_MISTAKES), so that the mock server answers a
 * body as the gateway does: the same code and status for the same mistake. Others (a stream already read) pass on.
 */
function toRequestMistake(err: unknown, limit: number): unknown {
  const failure = isJsonObject(err) ? err : {};
  const said = typeof failure.message === 'string' ? failure.message : undefined;
  switch (failure.type) {
    case 'entity.too.large':
      return refuseRequest('bodyTooLarge', `the request body is larger than ${limit} bytes`);
    // A form of more than 1,000 fields: a body too large in fields rather than bytes.
    case 'parameters.too.many':
      return refuseRequest('bodyTooLarge', 'the form body has too many fields');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return refuseRequest('bodyUndecodable', said && `the request body cannot be decoded: ${said}`);
    case 'request.aborted':
    case 'request.size.invalid':
      return refuseRequest('bodyUnreadable');
    default:
      return err;
  }
}

/**
 * JSON bodies (`application/json` and `+json` types) as express.json({strict: false}) read them (an empty one is
 * `{}`), but read as bytes first, decoded as UTF-8 whatever charset the header names, as the gateway and the
 * services read them (RFC 8259 §8.1), and parsed a slice at a time (parseJsonInSlices): JSON.parse alone held the
 * event loop for 100-170 ms on 1 MiB of small nested arrays.
 */
function createJsonParser(limit: number): Middleware {
  const readBytes = express.raw({ limit, type: (req) => isJsonMediaType(String(req.headers['content-type'] ?? '')) });
  return (req, res, next) =>
    readBytes(req, res, (err?: unknown) => {
      if (err || !Buffer.isBuffer(req.body)) {
        next(err);
        return;
      }
      let text: string;
      try {
        text = utf8.decode(req.body);
      } catch {
        next(refuseRequest('malformedJson'));
        return;
      }
      req.body = text;
      bodyLengths.set(req, text.length);
      if (isNestedDeeperThan(text, MAX_JSON_DEPTH)) {
        next(refuseRequest('jsonTooDeep'));
        return;
      }
      parseJsonInSlices(text === '' ? '{}' : text).then(
        (value) => {
          req.body = value;
          next();
        },
        () => next(refuseRequest('malformedJson')),
      );
    });
}

/**
 * JSON, urlencoded and text bodies, as upstream's `bodyParser()` read them; other types stay unread. A body the
 * parsers refuse is one of the table's mistakes (toRequestMistake).
 */
export function createBodyParser(limit: number): (req: Request, res: Response) => Promise<void> {
  const parsers: Middleware[] = [
    createJsonParser(limit),
    express.urlencoded({ limit, extended: false }),
    express.text({ limit, type: 'text/*' }),
  ];
  return async (req, res) => {
    try {
      for (const parser of parsers) await run(parser, req, res);
    } catch (err) {
      throw toRequestMistake(err, limit);
    }
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
  const body: unknown = req.body;
  const field = isJsonObject(body) ? body._method : undefined;
  const wanted = typeof header === 'string' ? header : typeof field === 'string' ? field : undefined;
  if (!wanted || !OVERRIDABLE.has(wanted.toUpperCase()) || wanted.toUpperCase() === 'POST') return false;
  req.method = wanted.toUpperCase();
  return true;
}
