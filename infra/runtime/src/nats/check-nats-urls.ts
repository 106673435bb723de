const SCHEMES = new Set(['nats:', 'tls:', 'ws:', 'wss:']);

/**
 * Says what is wrong with a NATS server list (comma-separated URLs; `host:port` alone means `nats://host:port`),
 * or undefined. nats.js would take an unparsable URL and retry it forever, so a typo is refused at start instead.
 */
export function checkNatsUrls(value: unknown): string | undefined {
  const urls = String(value)
    .split(',')
    .map((url) => url.trim());
  for (const url of urls) {
    if (url === '') return 'an empty URL in the list';
    let parsed: URL;
    try {
      parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `nats://${url}`);
    } catch {
      return `"${url}" is not a URL`;
    }
    if (!SCHEMES.has(parsed.protocol))
      return `"${url}" has the scheme ${parsed.protocol.slice(0, -1)}; NATS takes nats, tls, ws or wss`;
    if (parsed.hostname === '') return `"${url}" names no host`;
  }
  return undefined;
}
