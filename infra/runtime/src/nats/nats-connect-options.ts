import type { ConnectionOptions } from 'nats';

export interface NatsServersAndAuth extends Pick<ConnectionOptions, 'user' | 'pass' | 'token'> {
  /** The server URLs without credentials: what may be logged. */
  servers: string[];
}

/**
 * Turns the `-n` value (one URL, or several separated by commas) into what nats.js takes: a list of servers and,
 * from the first URL that carries them, `user:password@` or `token@` as connect options. nats.js ignores
 * credentials in a URL, and a URL with its password must never reach a log line.
 */
export function toNatsServersAndAuth(value: string | string[]): NatsServersAndAuth {
  const result: NatsServersAndAuth = { servers: [] };
  for (const raw of [value].flat().flatMap((url) => url.split(','))) {
    const text = raw.trim();
    const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
    let url: URL;
    try {
      url = new URL(hasScheme ? text : `nats://${text}`);
    } catch {
      result.servers.push(text); // checkNatsUrls refuses these at start; a caller that skipped it gets nats.js' error
      continue;
    }
    if (url.username && result.user === undefined && result.token === undefined) {
      const name = decodeURIComponent(url.username);
      if (url.password) Object.assign(result, { user: name, pass: decodeURIComponent(url.password) });
      else result.token = name;
    }
    url.username = '';
    url.password = '';
    const bare = url.toString().replace(/\/$/, '');
    result.servers.push(hasScheme ? bare : bare.slice('nats://'.length));
  }
  return result;
}
