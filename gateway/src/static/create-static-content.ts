import { realpathSync } from 'node:fs';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { resolve, sep } from 'node:path';
import serveIndex from 'serve-index';
import serveStatic from 'serve-static';
import { REQUEST_MISTAKES, RestbusError, sendError, type Logger } from '@restbus/infra';
import type { ApiEndpoint } from '../openapi/endpoint';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

export interface StaticMount {
  /** The operation that describes it: its security (--auth) is checked before a file is served. */
  endpoint: ApiEndpoint;
  /** The path as described, lower case and without a trailing slash ('' for `/`). */
  prefix: string;
  files: Middleware;
  listing: Middleware;
}

export interface StaticContent {
  /** The mount that serves `path` (the longest described prefix it is under), if any. */
  match(path: string): StaticMount | undefined;
  /** Answers a call from the mount: a file, a directory's index.html or listing, or a JSON error. */
  serve(mount: StaticMount, req: IncomingMessage, res: ServerResponse, headers: OutgoingHttpHeaders): void;
}

export interface StaticContentOptions {
  endpoints: readonly ApiEndpoint[];
  /** What `contentPath`s are relative to, and must stay inside. */
  baseDir: string;
  logger: Logger;
}

const isInside = (root: string, path: string): boolean =>
  path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/** The real folder a contentPath names; one that leads out of the base folder is refused. */
function resolveRoot(endpoint: ApiEndpoint, contentPath: string, base: string, logger: Logger): string {
  const root = resolve(base, contentPath);
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    // easer answered 404 for a folder that is not there; say so once, as the folder may come later.
    logger.warn(
      { uri: endpoint.model.path, contentPath },
      `x-static of ${endpoint.model.path}: ${contentPath} does not exist`,
    );
    return root;
  }
  if (!isInside(base, real)) {
    throw new RestbusError(
      'OPENAPI_INVALID',
      `${endpoint.file}: x-static of ${endpoint.model.path} serves ${contentPath}, which leads outside the static content base path (--staticContentBasePath)`,
    );
  }
  return real;
}

/**
 * easer's `x-static` operations: the files under each `contentPath` (relative to the static base path) are served
 * at the operation's path and below it, as easer's `express.static` and `serve-index` served them, never forwarded:
 * `index.html` for a folder, else a listing; a folder named without its trailing slash is redirected to it.
 * Paths are matched as easer's Express matched them (case-insensitive, at segment boundaries) and, as in easer,
 * not under `--basePath`. A path leading outside the folder (`..`, encoded or not) is refused.
 */
export function createStaticContent(options: StaticContentOptions): StaticContent {
  const logger = options.logger.child({ component: 'static' });
  let base: string;
  try {
    base = realpathSync(resolve(options.baseDir));
  } catch {
    throw new RestbusError('CONFIG_INVALID', `the static content base path ${options.baseDir} does not exist`);
  }
  const mounts: StaticMount[] = [];
  for (const endpoint of options.endpoints) {
    const { static: content, path } = endpoint.model;
    if (!content) continue;
    const prefix = path.replace(/\/+$/, '').toLowerCase();
    if (mounts.some((mount) => mount.prefix === prefix)) continue; // GET and HEAD of one path: one mount
    const root = resolveRoot(endpoint, content.contentPath, base, logger);
    mounts.push({
      endpoint,
      prefix,
      files: serveStatic(root, { index: ['index.html'], redirect: true, fallthrough: true }),
      // Typed as Express middleware, it reads only what Node's own request and response have.
      listing: serveIndex(root) as Middleware,
    });
  }
  // The longest prefix first, so that /docs/api is served by its own mount rather than by /docs.
  mounts.sort((a, b) => b.prefix.length - a.prefix.length);

  function fail(res: ServerResponse, err: unknown, headers: OutgoingHttpHeaders): void {
    // serve-static's and serve-index's errors carry the status they stand for.
    const status = typeof err === 'object' && err !== null && 'status' in err ? err.status : undefined;
    if (status === 400) sendError(res, 'BAD_REQUEST', REQUEST_MISTAKES.malformedPath.says, headers);
    else if (status === 403) sendError(res, 'FORBIDDEN', 'the path leads outside the static content', headers);
    else if (status === 404) sendError(res, 'NOT_FOUND', 'no such file', headers);
    else {
      logger.error({ err }, 'static content could not be served');
      sendError(res, 'INTERNAL', 'the static content could not be served', headers);
    }
  }

  return {
    match(path) {
      const lower = path.toLowerCase();
      return mounts.find(
        ({ prefix }) => lower === prefix || lower.startsWith(`${prefix}/`) || (prefix === '' && lower.startsWith('/')),
      );
    },
    serve(mount, req, res, headers) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendError(res, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on static content`, {
          ...headers,
          allow: 'GET, HEAD',
        });
        return;
      }
      for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value);
      const url = req.url ?? '/';
      // As Express's mounting does: the middleware sees the path below the mount, and redirects use the original.
      Object.assign(req, { originalUrl: url, url: url.slice(mount.prefix.length) || '/' });
      if (!req.url!.startsWith('/')) req.url = `/${req.url}`;
      mount.files(req, res, (err) => {
        if (err) return fail(res, err, headers);
        mount.listing(req, res, (listingErr) => {
          if (listingErr) return fail(res, listingErr, headers);
          sendError(res, 'NOT_FOUND', 'no such file', headers);
        });
      });
    },
  };
}
