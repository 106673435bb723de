import { createHash } from 'node:crypto';
import { nkeys } from 'nats';

type KeyPair = ReturnType<typeof nkeys.createUser>;

export interface OperatorSetup {
  /** The lines of a nats-server configuration that trust the operator and preload its accounts. */
  readonly serverConfig: string;
  /** A credentials file's content for a user of the application account. */
  readonly creds: string;
  /** The same, for a user whose JWT expired an hour ago. */
  readonly expiredCreds: string;
  /** The user's JWT with the seed of another user. */
  readonly mismatchedCreds: string;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function toBase32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + BASE32[(value << (5 - bits)) & 31] : out;
}

const toBase64Url = (text: string): string => Buffer.from(text).toString('base64url');

// Fixed times (seconds since 1970), not the clock: issued in the past, and a lapsed expiry for the expired user.
const ISSUED_AT = 1_704_067_200; // 2024-01-01
const EXPIRED_AT = ISSUED_AT + 3600;

/** A NATS JWT (v2 claims, ed25519-nkey signature), as nsc would issue it. */
function issueJwt(issuer: KeyPair, subject: string, name: string, nats: object, expires?: number): string {
  const claims: Record<string, unknown> = {
    iat: ISSUED_AT,
    ...(expires === undefined ? {} : { exp: expires }),
    iss: issuer.getPublicKey(),
    name,
    sub: subject,
    nats: { ...nats, version: 2 },
  };
  claims.jti = toBase32(createHash('sha256').update(JSON.stringify(claims)).digest());
  const signed = `${toBase64Url(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }))}.${toBase64Url(JSON.stringify(claims))}`;
  return `${signed}.${Buffer.from(issuer.sign(Buffer.from(signed))).toString('base64url')}`;
}

function toCreds(jwt: string, user: KeyPair): string {
  return (
    `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n` +
    '************************* IMPORTANT *************************\n' +
    'NKEY Seed printed below can be used to sign and prove identity.\n\n' +
    `-----BEGIN USER NKEY SEED-----\n${new TextDecoder().decode(user.getSeed())}\n------END USER NKEY SEED------\n`
  );
}

/**
 * Decentralised auth without nsc: an operator, a system and an application account, and users, signed with the
 * nkeys nats.js ships; the server resolves the accounts from memory.
 */
export function createOperatorSetup(): OperatorSetup {
  const operator = nkeys.createOperator();
  const system = nkeys.createAccount();
  const account = nkeys.createAccount();
  const user = nkeys.createUser();
  const limits = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
  const operatorJwt = issueJwt(operator, operator.getPublicKey(), 'restbus-test', { type: 'operator' });
  const systemJwt = issueJwt(operator, system.getPublicKey(), 'SYS', { type: 'account', limits });
  const accountJwt = issueJwt(operator, account.getPublicKey(), 'app', { type: 'account', limits });
  const userClaims = { type: 'user', pub: {}, sub: {}, subs: -1, data: -1, payload: -1 };
  const userJwt = issueJwt(account, user.getPublicKey(), 'service', userClaims);
  const expiredJwt = issueJwt(account, user.getPublicKey(), 'service', userClaims, EXPIRED_AT);
  return {
    serverConfig:
      `operator: "${operatorJwt}"\nsystem_account: "${system.getPublicKey()}"\nresolver: MEMORY\n` +
      `resolver_preload: { ${system.getPublicKey()}: "${systemJwt}", ${account.getPublicKey()}: "${accountJwt}" }\n`,
    creds: toCreds(userJwt, user),
    expiredCreds: toCreds(expiredJwt, user),
    mismatchedCreds: toCreds(userJwt, nkeys.createUser()),
  };
}
