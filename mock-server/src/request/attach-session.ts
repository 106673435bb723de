import type { Request, RequestHandler, Response } from 'express';

const SESSION_COOKIE = /(?:^|;\s*)connect\.sid=/;

/**
 * Gives an implementation function `request.session`. A request that brings a session cookie has its session
 * loaded from the store first (that is asynchronous). Without one, express-session would only make up a new
 * session id, hash and wrap the response on every call: most calls (isAlive, say) never look at the session, so it
 * is made on first access instead. Without a cookie express-session works synchronously, so the getter can return
 * the new session at once; a session first touched after the response ended is not saved.
 */
export async function attachSession(middleware: RequestHandler, req: Request, res: Response): Promise<void> {
  if (SESSION_COOKIE.test(req.headers.cookie ?? '')) {
    await new Promise<void>((resolve, reject) => {
      void middleware(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    });
    return;
  }
  let failure: unknown;
  const create = (): void => {
    // The getter goes first (Reflect: the types declare both fields always present): express-session's first step is `if (req.session) next()`.
    Reflect.deleteProperty(req, 'session');
    Reflect.deleteProperty(req, 'sessionID');
    void middleware(req, res, (err?: unknown) => (failure = err));
    if (failure) throw failure;
  };
  Object.defineProperty(req, 'session', {
    configurable: true,
    enumerable: true,
    get() {
      create();
      return req.session;
    },
    set(value: Request['session']) {
      Reflect.deleteProperty(req, 'session');
      Reflect.deleteProperty(req, 'sessionID');
      req.session = value;
    },
  });
  Object.defineProperty(req, 'sessionID', {
    configurable: true,
    get() {
      create();
      return req.sessionID;
    },
  });
}
