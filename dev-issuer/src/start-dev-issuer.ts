import type { IncomingMessage } from 'node:http';
import { createHttpServer, listenHttpServer, sendError, type Logger } from '@restbus/infra';
import type { DevIssuerConfig } from './dev-issuer-program';
import { loadOAuth2MockServer } from './oauth2-mock-server';

/** A token request is a short form; longer bodies are refused before oauth2-mock-server reads them. */
export const MAX_REQUEST_BYTES = 16 * 1024;

/** A running issuer: where it listens, the `iss` of its tokens, and how to stop it. */
export interface DevIssuer {
  /** The port it listens on (the one asked for, or the one the system gave for 0). */
  port: number;
  issuer: string;
  stop(): Promise<void>;
}

/** The subject a client-credentials token has none of otherwise: the client, from Basic credentials or the form. */
function readClientId(req: IncomingMessage & { body?: Record<string, unknown> }): string | undefined {
  const basic = /^basic +([A-Za-z0-9+/]+=*) *$/i.exec(req.headers.authorization ?? '')?.[1];
  const name = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':')[0] : undefined;
  if (name) return name;
  const fromForm = req.body?.client_id;
  return typeof fromForm === 'string' && fromForm !== '' ? fromForm : undefined;
}

/**
 * oauth2-mock-server's OpenID Connect endpoints as an issuer a gateway can discover: its tokens name `config.issuer`
 * (the URL the gateway reaches it by, which in compose is not the one the host uses), are signed with an RS256 key
 * made at start, and carry a subject (the user of a password grant, else the client) and `config.audience` when they
 * ask for no audience. Served by restbus's bounded HTTP server: a body without a length or longer than
 * MAX_REQUEST_BYTES is refused in JSON before the library reads it.
 */
export async function startDevIssuer(config: DevIssuerConfig, logger: Logger): Promise<DevIssuer> {
  const { OAuth2Issuer, OAuth2Service } = loadOAuth2MockServer();
  const issuer = new OAuth2Issuer();
  await issuer.keys.generate('RS256');
  const service = new OAuth2Service(issuer);
  service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }, req: IncomingMessage) => {
    const { payload } = token;
    payload.sub ??= readClientId(req) ?? 'dev-client';
    if (payload.aud === undefined && config.audience !== undefined) payload.aud = config.audience;
    logger.info({ sub: payload.sub, aud: payload.aud, scope: payload.scope }, 'token issued');
  });
  const handle = service.requestHandler;
  const server = createHttpServer((req, res) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
    const length = Number(req.headers['content-length'] ?? 0);
    if (hasBody && req.headers['content-length'] === undefined) {
      sendError(res, 'BAD_REQUEST', 'a request body needs a Content-Length here');
    } else if (!Number.isSafeInteger(length) || length > MAX_REQUEST_BYTES) {
      sendError(res, 'BODY_TOO_LARGE', `a request body may have at most ${MAX_REQUEST_BYTES} bytes`);
    } else {
      handle(req, res);
    }
  });
  const { port } = await listenHttpServer(server, {
    port: config.port,
    host: config.host,
    howToChoose: (other) => `--port ${other} or DEV_ISSUER_PORT=${other}`,
  });
  issuer.url = config.issuer ?? `http://localhost:${port}`;
  return {
    port,
    issuer: issuer.url,
    stop: () => new Promise((done) => server.close(() => done())),
  };
}
