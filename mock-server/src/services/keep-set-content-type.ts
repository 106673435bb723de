import type { ServerResponse } from 'node:http';

/**
 * Express 5 adds `; charset=utf-8` to a JSON or text Content-Type (`res.set`, `res.type`, and `res.send` of a string
 * rewrites whatever was set), and Express 3, which upstream rest-tool's implementations were written for, did not:
 * their tests compare `application/json` exactly. So on a response an implementation writes, the Content-Type it
 * set itself goes out as it set it; the types express chooses on its own (`res.json()` with none set, `sendStatus`)
 * keep their charset, and so do the server's own answers, which are not tracked.
 */

const TRACKED = Symbol('restbus.trackContentType');
const SET_TYPE = Symbol('restbus.setContentType');
const INSIDE = Symbol('restbus.insideExpress');

interface Tracked {
  [TRACKED]?: boolean;
  /** The Content-Type as the implementation set it, when it did. */
  [SET_TYPE]?: string;
  /** How deep in express's own helpers the response is: what they set is not the implementation's. */
  [INSIDE]?: number;
}

type Method = (this: ServerResponse & Tracked, ...args: unknown[]) => unknown;

// Express helpers that set a Content-Type of their own choosing, or rewrite the one set.
const CHOOSING = ['send', 'json', 'jsonp', 'sendStatus', 'sendFile', 'download', 'format', 'attachment', 'redirect'];

const isContentType = (name: unknown): boolean => typeof name === 'string' && name.toLowerCase() === 'content-type';

/** The type and its parameters other than charset, for telling express's charset rewrite from a new type. */
const withoutCharset = (type: string): string =>
  type
    .replace(/;\s*charset\s*=\s*("[^"]*"|[^;]*)/gi, '')
    .replace(/\s+/g, '')
    .toLowerCase();

function record(res: Tracked, value: unknown): void {
  if (res[INSIDE]) return;
  res[SET_TYPE] = value === undefined ? undefined : String(value);
}

function inside(res: Tracked, call: () => unknown): unknown {
  res[INSIDE] = (res[INSIDE] ?? 0) + 1;
  try {
    return call();
  } finally {
    res[INSIDE] = (res[INSIDE] ?? 1) - 1;
  }
}

/**
 * Installs the tracking on the server's response class (once): untracked responses pay one property check per
 * call. `base` is express's response prototype, whose methods these wrap.
 */
export function installContentTypeKeeping(prototype: object, base: object): void {
  const original = (name: string): Method => {
    const method = (base as Record<string, unknown>)[name];
    if (typeof method !== 'function') throw new Error(`express's response has no ${name}`);
    return method as Method;
  };
  const define = (name: string, method: Method): void => {
    Object.defineProperty(prototype, name, { value: method, writable: true, configurable: true });
  };

  for (const name of CHOOSING) {
    const helper = original(name);
    define(name, function (...args) {
      return this[TRACKED] ? inside(this, () => helper.apply(this, args)) : helper.apply(this, args);
    });
  }

  const set = original('set');
  // Called with the arguments as given: express tells `set(field, value)` from `set({ ... })` by their number.
  const setting: Method = function (...args) {
    if (!this[TRACKED]) return set.apply(this, args);
    const [field, value] = args;
    if (typeof field === 'string') {
      if (isContentType(field)) record(this, value);
    } else if (field && typeof field === 'object') {
      for (const [name, content] of Object.entries(field)) if (isContentType(name)) record(this, content);
    }
    return inside(this, () => set.apply(this, args));
  };
  define('set', setting);
  define('header', setting);

  const type = original('type');
  const typing: Method = function (...args) {
    if (!this[TRACKED]) return type.apply(this, args);
    // A shorthand (`res.type('json')`) names no exact type: express's expansion stands.
    const [value] = args;
    record(this, typeof value === 'string' && value.includes('/') ? value : undefined);
    return inside(this, () => type.apply(this, args));
  };
  define('type', typing);
  define('contentType', typing);

  const setHeader = original('setHeader');
  // Two fixed parameters, as Node's own: every mock answer sets its headers through here.
  define('setHeader', function (name, value) {
    if (this[TRACKED] && isContentType(name)) record(this, value);
    return setHeader.call(this, name, value);
  });

  const removeHeader = original('removeHeader');
  define('removeHeader', function (...args) {
    if (this[TRACKED] && isContentType(args[0])) record(this, undefined);
    return removeHeader.apply(this, args);
  });

  // Node writes the head through writeHead, also for res.end() and res.write() without one (_implicitHeader).
  const writeHead = original('writeHead');
  define('writeHead', function (...args) {
    const wanted = this[TRACKED] ? this[SET_TYPE] : undefined;
    if (wanted !== undefined && !this.headersSent) {
      const current = this.getHeader('content-type');
      if (typeof current === 'string' && current !== wanted && withoutCharset(current) === withoutCharset(wanted)) {
        setHeader.call(this, 'content-type', wanted);
      }
    }
    return writeHead.apply(this, args);
  });
}

/** From now on, the Content-Type set on this response by the code calling it goes out exactly as set. */
export function keepSetContentType(res: ServerResponse): void {
  (res as ServerResponse & Tracked)[TRACKED] = true;
}
