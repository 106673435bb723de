import type { IncomingHttpHeaders } from 'node:http';
import type { ApiEndpoint } from '../openapi/endpoint';
import { isObject, type Json } from './is-object';

/** What a request carries that credentials can be in. */
export interface Credentials {
  headers: IncomingHttpHeaders;
  /** The query string without its `?`. */
  query: string;
}

function hasCookie(headers: IncomingHttpHeaders, name: string): boolean {
  return (headers.cookie ?? '').split(';').some((pair) => pair.trim().split('=')[0] === name);
}

function authorizationIs(headers: IncomingHttpHeaders, scheme: string): boolean {
  const value = headers.authorization ?? '';
  return value.toLowerCase().startsWith(`${scheme.toLowerCase()} `) && value.trim().length > scheme.length;
}

/** Whether the credentials a scheme asks for are there (present, not valid: the mock knows no secrets). */
function isPresent(scheme: Json, credentials: Credentials): boolean {
  const type = String(scheme.type ?? '');
  if (type === 'apiKey') {
    const name = String(scheme.name ?? '');
    if (scheme.in === 'query') return new URLSearchParams(credentials.query).has(name);
    if (scheme.in === 'cookie') return hasCookie(credentials.headers, name);
    return credentials.headers[name.toLowerCase()] !== undefined;
  }
  if (type === 'http') return authorizationIs(credentials.headers, String(scheme.scheme ?? 'bearer'));
  if (type === 'basic') return authorizationIs(credentials.headers, 'basic'); // Swagger 2.0
  if (type === 'oauth2' || type === 'openIdConnect') return authorizationIs(credentials.headers, 'bearer');
  return true; // mutualTLS and the unknown: nothing the mock can see
}

/** The `WWW-Authenticate` challenge of a scheme (RFC 9110 §11.6.1); an API key's names where it goes. */
function challengeOf(scheme: Json): string {
  const type = String(scheme.type ?? '');
  if (type === 'apiKey') return `ApiKey in="${String(scheme.in ?? 'header')}", name="${String(scheme.name ?? '')}"`;
  if (type === 'basic' || (type === 'http' && String(scheme.scheme).toLowerCase() === 'basic')) {
    return 'Basic realm="restbus"';
  }
  if (type === 'http' && String(scheme.scheme ?? 'bearer').toLowerCase() !== 'bearer') {
    const name = String(scheme.scheme);
    return `${name[0].toUpperCase()}${name.slice(1)} realm="restbus"`;
  }
  return 'Bearer realm="restbus"';
}

/**
 * The challenges to answer `401` with when no security requirement of the operation (its own `security`, else
 * the document's) has all of its credentials in the request; undefined when one has (an empty requirement `{}`
 * lets anyone in), or when there are none. Presence is checked, not validity, as Prism does.
 */
export function findUnmetSecurity(endpoint: ApiEndpoint, credentials: Credentials): string[] | undefined {
  const { document, operation } = endpoint;
  const requirements = (Array.isArray(operation.security) ? operation.security : document.security) as unknown;
  if (!Array.isArray(requirements) || requirements.length === 0) return undefined;
  const components = isObject(document.components) ? document.components : {};
  const schemes = (isObject(components.securitySchemes) ? components.securitySchemes : document.securityDefinitions) as
    Json | undefined;
  const challenges = new Set<string>();
  for (const requirement of requirements) {
    if (!isObject(requirement)) continue;
    const named = Object.keys(requirement).map((name) =>
      isObject(schemes?.[name]) ? (schemes[name] as Json) : undefined,
    );
    if (named.every((scheme) => scheme === undefined || isPresent(scheme, credentials))) return undefined;
    for (const scheme of named) if (scheme) challenges.add(challengeOf(scheme));
  }
  return [...challenges];
}
