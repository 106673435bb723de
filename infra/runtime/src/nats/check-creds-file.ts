import { credsAuthenticator } from 'nats';
import { isJsonObject } from '../json/is-json-object';
import { readSettingFile } from './read-setting-file';

interface UserClaims {
  sub?: unknown;
  exp?: unknown;
  nats?: { type?: unknown };
}

function decodeClaims(jwt: string): UserClaims | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return isJsonObject(claims) ? claims : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Says what is wrong with the content of a credentials file, or undefined: it must parse as nats.js parses it
 * (`credsAuthenticator`: a user JWT and an nkey seed between their `-----BEGIN …-----` lines), the seed must sign,
 * and the JWT must be the seed's user and not have expired. Never quotes the content.
 */
export function describeCredsProblem(bytes: Uint8Array, now = Date.now()): string | undefined {
  let auth: { jwt: string; nkey: string };
  try {
    // credsAuthenticator parses lazily; signing a nonce makes it read both parts and derive the seed's public key.
    auth = credsAuthenticator(bytes)('restbus-check') as { jwt: string; nkey: string };
  } catch {
    return 'is not a NATS credentials file (a user JWT and an nkey seed)';
  }
  const claims = decodeClaims(auth.jwt);
  if (!claims) return 'holds a user JWT that does not decode';
  if (claims.nats?.type !== undefined && claims.nats.type !== 'user')
    return 'holds a JWT that is not a user JWT (an account or operator JWT?)';
  if (claims.sub !== auth.nkey) return "holds an nkey seed that is not the JWT's user";
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= now)
    return `holds a user JWT that expired on ${new Date(claims.exp * 1000).toISOString()}`;
  return undefined;
}

/** Says what is wrong with a credentials file (`--natsCreds`), or undefined. */
export function checkCredsFile(path: unknown): string | undefined {
  const read = readSettingFile(path);
  return 'problem' in read ? read.problem : describeCredsProblem(read.bytes);
}
