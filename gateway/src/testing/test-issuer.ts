import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadJose, type Jose } from '../security/jose';

const jose = loadJose();

/** A self-signed certificate for 127.0.0.1 and localhost, made by openssl; `cert` is the file a client trusts. */
export async function createTestCertificate(): Promise<{ dir: string; key: string; cert: string; certFile: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'restbus-issuer-tls-'));
  const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  try {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ]);
  } catch (err) {
    throw new Error('the test issuer needs openssl (Debian package openssl) to make its certificate', { cause: err });
  }
  return { dir, key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8'), certFile };
}

/** What a path of the issuer answers: as an issuer does, or one of the ways an issuer goes wrong. */
export type IssuerBehaviour = 'normal' | 'down' | 'slow' | 'huge' | 'redirect' | 'garbage' | 'not-a-key-set';

interface SigningKey {
  kid: string;
  alg: string;
  privateKey: Jose.CryptoKey;
  publicJwk: Jose.JWK;
}

export interface SignOptions {
  /** The key to sign with (the first published one when left out). */
  kid?: string;
  /** Header members to add or override (`alg: 'none'`, `jku`, `jwk` …). */
  header?: Record<string, unknown>;
  /** Seconds from now the token expires; 300 when left out; `null` for no `exp`. */
  expiresIn?: number | null;
}

/**
 * A real OpenID Connect issuer for tests: HTTP or HTTPS on port 0, a discovery document at
 * `/.well-known/openid-configuration`, its key set at `/jwks`, keys made with jose that can be added, published and
 * withdrawn (rotation), tokens signed with any of them, and each path able to misbehave (down, slow, huge, a redirect,
 * garbage). It counts the fetches of each document.
 */
export class TestIssuer {
  readonly fetches = { discovery: 0, jwks: 0 };
  /** How each document is answered. */
  behaviour: { discovery: IssuerBehaviour; jwks: IssuerBehaviour } = { discovery: 'normal', jwks: 'normal' };
  /** The `issuer` the discovery document names (the issuer's own URL unless a test lies). */
  advertisedIssuer?: string;
  private readonly keys = new Map<string, SigningKey>();
  private published: string[] = [];
  private counter = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly tls?: { dir: string },
  ) {}

  static async start(options: { tls?: { dir: string; key: string; cert: string } } = {}): Promise<TestIssuer> {
    // The server is made before the issuer that answers on it.
    const made: { issuer?: TestIssuer } = {};
    const listener = (req: IncomingMessage, res: ServerResponse) => made.issuer!.answer(req, res);
    const server = options.tls
      ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener)
      : createHttpServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    made.issuer = new TestIssuer(server, `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`, options.tls);
    return made.issuer;
  }

  get discoveryUrl(): string {
    return `${this.url}/.well-known/openid-configuration`;
  }

  get jwksUrl(): string {
    return `${this.url}/jwks`;
  }

  /** Makes a key (RS256 unless said), published in the key set unless `publish` is false; resolves its `kid`. */
  async addKey(options: { alg?: string; publish?: boolean; kid?: string } = {}): Promise<string> {
    const alg = options.alg ?? 'RS256';
    const kid = options.kid ?? `key-${++this.counter}`;
    const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
    const publicJwk = { ...(await jose.exportJWK(publicKey)), kid, alg, use: 'sig' };
    this.keys.set(kid, { kid, alg, privateKey, publicJwk });
    if (options.publish !== false) this.published.push(kid);
    return kid;
  }

  /** The key set published from now on: these keys, in this order. */
  publish(kids: string[]): void {
    this.published = [...kids];
  }

  /** A key's public JWK (for tests that forge with it). */
  publicJwk(kid: string): Jose.JWK {
    return this.keys.get(kid)!.publicJwk;
  }

  /** A token with these claims (`iss` this issuer and `exp` in 5 minutes unless given), signed with a key of this issuer. */
  async sign(claims: Record<string, unknown>, options: SignOptions = {}): Promise<string> {
    const key = this.keys.get(options.kid ?? this.published[0])!;
    const now = Math.floor(Date.now() / 1000);
    const expiresIn = options.expiresIn === undefined ? 300 : options.expiresIn;
    const payload = { iss: this.url, iat: now, ...(expiresIn !== null && { exp: now + expiresIn }), ...claims };
    return new jose.SignJWT(payload)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...options.header })
      .sign(key.privateKey);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    if (this.tls) await rm(this.tls.dir, { recursive: true, force: true });
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/.well-known/openid-configuration') {
      this.fetches.discovery++;
      const document = {
        issuer: this.advertisedIssuer ?? this.url,
        jwks_uri: this.jwksUrl,
        id_token_signing_alg_values_supported: ['RS256'],
      };
      this.send(res, this.behaviour.discovery, document);
      return;
    }
    if (path === '/jwks') {
      this.fetches.jwks++;
      const keys = this.published.map((kid) => this.keys.get(kid)!.publicJwk);
      this.send(res, this.behaviour.jwks, { keys });
      return;
    }
    res.writeHead(404).end();
  }

  private send(res: ServerResponse, behaviour: IssuerBehaviour, document: unknown): void {
    const json = { 'content-type': 'application/json' };
    switch (behaviour) {
      case 'down':
        res.writeHead(503).end();
        return;
      case 'slow':
        // Headers at once, then nothing: only the fetch's own deadline ends it.
        res.writeHead(200, json);
        res.write('{"keys": [');
        return;
      case 'huge': {
        // No length announced: the bound must hold while reading.
        res.writeHead(200, json);
        const chunk = Buffer.alloc(64 * 1024, ' ');
        let sent = 0;
        const more = (): void => {
          while (sent < 64 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', more);
              return;
            }
          }
          res.end('{}');
        };
        res.on('error', () => undefined);
        more();
        return;
      }
      case 'redirect':
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
        return;
      case 'garbage':
        res.writeHead(200, json).end('<html>not json</html>');
        return;
      case 'not-a-key-set':
        res.writeHead(200, json).end(JSON.stringify({ keys: 'none' }));
        return;
      default:
        res.writeHead(200, json).end(JSON.stringify(document));
    }
  }
}
