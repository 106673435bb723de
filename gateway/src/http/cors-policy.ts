import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';

export interface CorsPolicy {
  /** Adds the CORS headers of an actual request from an allowed origin. */
  addHeaders(req: IncomingMessage, headers: OutgoingHttpHeaders): void;
  isPreflight(req: IncomingMessage): boolean;
  /** Adds what a preflight answer needs: the allowed methods and the headers asked for. */
  addPreflightHeaders(req: IncomingMessage, headers: OutgoingHttpHeaders, allow: string): void;
}

/**
 * CORS for a list of origins (`*` allows any); requests from other origins get no CORS headers. `exposed` names the
 * response headers a page on an allowed origin may read beside the CORS-safelisted ones.
 */
export function createCorsPolicy(origins: readonly string[], exposed: readonly string[]): CorsPolicy {
  const exposeHeaders = exposed.join(', ');
  const any = origins.includes('*');
  const allowed = new Set(origins);
  const originOf = (req: IncomingMessage): string | undefined => {
    const origin = req.headers.origin;
    return origin && (any || allowed.has(origin)) ? origin : undefined;
  };
  return {
    addHeaders(req, headers) {
      const origin = originOf(req);
      if (!origin) return;
      headers['access-control-allow-origin'] = any ? '*' : origin;
      if (!any) headers.vary = 'Origin';
      headers['access-control-expose-headers'] = exposeHeaders;
    },
    isPreflight: (req) =>
      req.method === 'OPTIONS' && !!req.headers.origin && !!req.headers['access-control-request-method'],
    addPreflightHeaders(req, headers, allow) {
      if (!originOf(req)) return;
      headers['access-control-allow-methods'] = allow;
      const asked = req.headers['access-control-request-headers'];
      if (asked) headers['access-control-allow-headers'] = asked;
      headers['access-control-max-age'] = '600';
    },
  };
}
