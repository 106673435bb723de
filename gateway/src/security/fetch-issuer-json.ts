import { RestbusError } from '@restbus/infra';

/** How an issuer's documents (discovery, key set) are fetched: bounded in time and size, HTTPS unless allowed. */
export interface IssuerFetchLimits {
  /** The whole fetch, headers and body, at most (ms). */
  timeoutMs: number;
  /** The body at most (bytes): a key set is a few kilobytes. */
  maxBytes: number;
  /** Plain HTTP to a host that is not this machine (`--authAllowHttp`); loopback issuers may always use it. */
  allowHttp: boolean;
}

export const DEFAULT_ISSUER_FETCH_LIMITS: IssuerFetchLimits = {
  timeoutMs: 5000,
  maxBytes: 256 * 1024,
  allowHttp: false,
};

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Why a URL cannot be an issuer's (undefined when it can): only https, or http to this machine (a development
 * issuer) or when allowed. Credentials in the URL are refused: they would be sent to every redirect target and log.
 */
export function describeUnusableIssuerUrl(text: string, allowHttp: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry a user or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `must be https (not ${url.protocol.slice(0, -1)})`;
  if (allowHttp || LOOPBACK.test(url.hostname)) return undefined;
  return 'must be https (plain http only for an issuer on this machine, or with --authAllowHttp)';
}

/**
 * An issuer's JSON document (OpenID discovery, a JWK set): GET, no redirects followed (a redirect could lead the
 * gateway anywhere), 200 only, read up to `maxBytes` and no further, within `timeoutMs`. Fails with a RestbusError
 * `AUTH_UNAVAILABLE` whose message says what went wrong, for the log; clients never see it.
 */
export async function fetchIssuerJson(url: string, limits: IssuerFetchLimits): Promise<unknown> {
  const unusable = describeUnusableIssuerUrl(url, limits.allowHttp);
  if (unusable) throw new RestbusError('AUTH_UNAVAILABLE', `${url} ${unusable}`);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const fail = (why: string, cause?: unknown): RestbusError =>
    new RestbusError('AUTH_UNAVAILABLE', `${url}: ${why}`, { cause });
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'manual', signal, headers: { accept: 'application/json' } });
  } catch (err) {
    throw fail(signal.aborted ? `no answer within ${limits.timeoutMs} ms` : 'cannot be reached', err);
  }
  const drop = () => response.body?.cancel().catch(() => undefined);
  if (response.status !== 200) {
    void drop();
    const redirected = response.status >= 300 && response.status < 400;
    throw fail(
      redirected ? `answered a redirect (${response.status}), which is not followed` : `answered ${response.status}`,
    );
  }
  const announced = Number(response.headers.get('content-length') ?? 0);
  if (announced > limits.maxBytes) {
    void drop();
    throw fail(`announces ${announced} bytes, more than the ${limits.maxBytes} allowed`);
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for await (const chunk of response.body ?? []) {
      length += chunk.byteLength;
      if (length > limits.maxBytes) {
        void drop();
        throw fail(`sent more than the ${limits.maxBytes} bytes allowed`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof RestbusError) throw err;
    throw fail(
      signal.aborted ? `did not send its document within ${limits.timeoutMs} ms` : 'broke off its answer',
      err,
    );
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
  } catch (err) {
    throw fail('answered no UTF-8 JSON', err);
  }
}
