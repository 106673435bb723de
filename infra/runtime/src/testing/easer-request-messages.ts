import type { EndpointDesc, IncomingRequest, RequestMessage } from '../wire/types';

/**
 * Request messages shaped exactly as easer 7.0.4 sends them (npac-webserver-adapter 5.0.9, `callMessagingForwarder`
 * on Express 4.21), each beside the `request` restbus's gateway sends for the same HTTP call. Written from the
 * upstream source, not captured from it:
 *
 * - `request.body` is what Express's body parser left: `{}` when there was no body (easer's default raw parser,
 *   `express.raw({type: '*\/*'})`, sets it so), the text when the raw parser read one, the parsed value with
 *   `--parseJson` (or `--parseUrlencoded`, `--parseXml`);
 * - `parameters.query` is Express 4's `req.query` (qs, extended: `b[c]=3` is `{b: {c: "3"}}`, `a[]=x` a list);
 * - `cookies` come from cookie-parser (`j:` cookies parsed into values), `user` from passport when logged in;
 * - `headers` are Node's `req.headers`.
 */
export interface EaserCase {
  call: string;
  easer: RequestMessage | Record<string, unknown>;
  restbus: IncomingRequest;
}

const personsEndpoint = (method: EndpointDesc['method'], uri: string): EndpointDesc => ({
  uri,
  jsfUri: uri.replace(/\{(\w+)\}/g, ':$1'),
  method,
  operationId: null,
  consumes: method === 'put' || method === 'post' ? ['application/json'] : [],
  produces: ['application/json'],
  responses: {},
});

const curlHeaders = { host: 'localhost:3007', 'user-agent': 'curl/7.88.1', accept: '*/*' };
const jsonHeaders = (length: number) => ({
  ...curlHeaders,
  'content-type': 'application/json',
  'content-length': String(length),
});

function easerMessage(method: EndpointDesc['method'], uri: string, request: Record<string, unknown>) {
  return { topic: `easer.${method}_${uri}`, method, uri, endpointDesc: personsEndpoint(method, uri), request };
}

const luke = '{"id":"luke","familyName":"Skywalker","givenName":"Luke"}';
const leia = { id: 'leia', familyName: 'Organa', givenName: 'Leia' };
const han = { familyName: 'Solo', givenName: 'Han' };

export const EASER_CASES: EaserCase[] = [
  {
    call: 'GET /persons (no body: the raw parser left {})',
    easer: easerMessage('get', '/persons', {
      cookies: {},
      headers: curlHeaders,
      parameters: { query: {}, uri: {} },
      body: {},
    }),
    restbus: { cookies: {}, headers: curlHeaders, parameters: { query: {}, uri: {} }, body: '' },
  },
  {
    call: 'PUT /persons/luke (the raw parser read the body as text)',
    easer: easerMessage('put', '/persons/{personId}', {
      cookies: {},
      headers: jsonHeaders(luke.length),
      parameters: { query: {}, uri: { personId: 'luke' } },
      body: luke,
    }),
    restbus: {
      cookies: {},
      headers: jsonHeaders(luke.length),
      parameters: { query: {}, uri: { personId: 'luke' } },
      body: luke,
    },
  },
  {
    call: 'PUT /persons/leia with --parseJson, a session cookie, a j: cookie and a logged-in user',
    easer: easerMessage('put', '/persons/{personId}', {
      user: { id: 'u1', username: 'admin' },
      cookies: { 'connect.sid': 's:abc.def', prefs: { theme: 'dark' } },
      headers: {
        ...jsonHeaders(JSON.stringify(leia).length),
        cookie: 'connect.sid=s%3Aabc.def; prefs=j%3A%7B%22theme%22%3A%22dark%22%7D',
      },
      parameters: { query: {}, uri: { personId: 'leia' } },
      body: leia,
    }),
    restbus: {
      cookies: { 'connect.sid': 's:abc.def', prefs: 'j:{"theme":"dark"}' },
      headers: {
        ...jsonHeaders(JSON.stringify(leia).length),
        cookie: 'connect.sid=s%3Aabc.def; prefs=j%3A%7B%22theme%22%3A%22dark%22%7D',
      },
      parameters: { query: {}, uri: { personId: 'leia' } },
      body: JSON.stringify(leia),
    },
  },
  {
    call: 'GET /persons?limit=1&b[c]=3&tags[]=x&tags[]=y (qs-style nested query)',
    easer: easerMessage('get', '/persons', {
      cookies: {},
      headers: curlHeaders,
      parameters: { query: { limit: '1', b: { c: '3' }, tags: ['x', 'y'] }, uri: {} },
      body: {},
    }),
    restbus: {
      cookies: {},
      headers: curlHeaders,
      parameters: { query: { limit: '1', b: { c: '3' }, tags: ['x', 'y'] }, uri: {} },
      body: '',
    },
  },
  {
    call: 'GET /persons?limit[max]=1 (a nested value where a plain one is expected)',
    easer: easerMessage('get', '/persons', {
      cookies: {},
      headers: curlHeaders,
      parameters: { query: { limit: { max: '1' } }, uri: {} },
      body: {},
    }),
    restbus: {
      cookies: {},
      headers: curlHeaders,
      parameters: { query: { limit: { max: '1' } }, uri: {} },
      body: '',
    },
  },
  {
    call: 'GET /persons/luke',
    easer: easerMessage('get', '/persons/{personId}', {
      cookies: {},
      headers: curlHeaders,
      parameters: { query: {}, uri: { personId: 'luke' } },
      body: {},
    }),
    restbus: { cookies: {}, headers: curlHeaders, parameters: { query: {}, uri: { personId: 'luke' } }, body: '' },
  },
  {
    call: 'POST /persons with --parseJson',
    easer: easerMessage('post', '/persons', {
      cookies: {},
      headers: jsonHeaders(JSON.stringify(han).length),
      parameters: { query: {}, uri: {} },
      body: han,
    }),
    restbus: {
      cookies: {},
      headers: jsonHeaders(JSON.stringify(han).length),
      parameters: { query: {}, uri: {} },
      body: JSON.stringify(han),
    },
  },
  {
    call: 'POST /persons with --parseJson and the body {} (a body, since content-length says so)',
    easer: easerMessage('post', '/persons', {
      cookies: {},
      headers: jsonHeaders(2),
      parameters: { query: {}, uri: {} },
      body: {},
    }),
    restbus: { cookies: {}, headers: jsonHeaders(2), parameters: { query: {}, uri: {} }, body: '{}' },
  },
  {
    call: 'DELETE /persons/leia (no body)',
    easer: easerMessage('delete', '/persons/{personId}', {
      cookies: {},
      headers: curlHeaders,
      parameters: { query: {}, uri: { personId: 'leia' } },
      body: {},
    }),
    restbus: { cookies: {}, headers: curlHeaders, parameters: { query: {}, uri: { personId: 'leia' } }, body: '' },
  },
  {
    call: 'GET /persons (easer without any body parser: no body property at all)',
    easer: easerMessage('get', '/persons', {
      cookies: {},
      headers: curlHeaders,
      parameters: { query: {}, uri: {} },
    }),
    restbus: { cookies: {}, headers: curlHeaders, parameters: { query: {}, uri: {} }, body: '' },
  },
];
