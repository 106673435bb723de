import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from 'nats';
import { createExecutive } from '../executive/create-executive';
import { startNatsServer } from '../testing';
import { captureLogLines, type CapturedLog } from './__tests__/capture-log-lines';
import { createOperatorSetup, type OperatorSetup } from './__tests__/create-operator-creds';
import { createTestPki, type TestPki } from './__tests__/create-test-pki';
import { startConfiguredNatsServer, type ConfiguredNatsServer } from './__tests__/start-configured-nats-server';
import { createNatsLink, type NatsLink, type NatsLinkOptions } from './create-nats-link';

let link: NatsLink | undefined;
let log: CapturedLog;

beforeEach(() => {
  log = captureLogLines();
});

afterEach(async () => {
  await link?.drain();
  link = undefined;
});

function open(options: Omit<NatsLinkOptions, 'name' | 'logger'>): NatsLink {
  link = createNatsLink({ name: 'security-test', logger: log.logger, ...options });
  return link;
}

/** A request and its reply over the connection: it really carries messages, not just a handshake. */
async function echo(nc: NatsConnection): Promise<string> {
  const sub = nc.subscribe('echo', { max: 1, callback: (_err, msg) => msg.respond(msg.data) });
  try {
    return (await nc.request('echo', 'ping', { timeout: 2000 })).string();
  } finally {
    sub.unsubscribe();
  }
}

function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env, timeout: 10_000 }, (err, stdout) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
}

/** The first line the link logs: connected, or why not. */
const firstNatsLine = () => log.waitForLine((line) => line.component === 'nats');

describe('a link to a server that requires TLS and verifies client certificates', () => {
  let pki: TestPki;
  let server: ConfiguredNatsServer;

  beforeAll(async () => {
    pki = await createTestPki();
    server = await startConfiguredNatsServer(
      `tls { cert_file: "${pki.serverCertFile}", key_file: "${pki.serverKeyFile}", ` +
        `ca_file: "${pki.caFile}", verify: true, timeout: 2 }`,
    );
  });

  afterAll(async () => {
    await server?.dispose();
    await pki?.dispose();
  });

  it('connects with the CA, the client certificate and its key, and carries messages', async () => {
    const nc = await open({
      servers: server.url,
      tls: { caFile: pki.caFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile },
    }).ready();
    expect(nc.info?.tls_required).toBe(true);
    expect(await echo(nc)).toBe('ping');
  });

  it('does not connect without TLS settings, and logs that the system CAs do not know the server as an error', async () => {
    open({ servers: server.url });
    const line = await firstNatsLine();
    expect(line).toMatchObject({ level: 50, msg: expect.stringMatching(/^cannot connect to NATS/) });
    expect(line.err).toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(link!.isConnected()).toBe(false);
  });

  // The server refuses the certificate after the client has finished its side of the TLS 1.3 handshake, so all
  // nats.js sees is a connection that never answers: the link says "not reachable" with the reason TIMEOUT.
  it('is what a service started by the executive gets from --natsCa, --natsCert and --natsKey, and its container health check from NATS_CA, NATS_CERT and NATS_KEY', async () => {
    const executive = createExecutive({
      name: 'tls-service',
      version: '0.0.0',
      description: 'a service on a TLS-only NATS',
      startups: [],
      argv: [
        '-n',
        server.url,
        '--natsCa',
        pki.caFile,
        '--natsCert',
        pki.clientCertFile,
        '--natsKey',
        pki.clientKeyFile,
      ],
      env: {},
      logger: log.logger,
    });
    try {
      const { nc } = await executive.start();
      expect(nc.info?.tls_required).toBe(true);
      expect(await echo(nc)).toBe('ping');
      // The container health check reads the same files from the same variables.
      const env = { ...process.env, NATS_URL: server.url, NATS_CA: pki.caFile };
      const healthcheck = join(__dirname, '../../dist/healthcheck/main.js');
      const withoutCert = await runNode([healthcheck, 'tls-service'], env);
      expect(withoutCert.code).toBe(1);
      const withCert = await runNode([healthcheck, 'tls-service'], {
        ...env,
        NATS_CERT: pki.clientCertFile,
        NATS_KEY: pki.clientKeyFile,
      });
      expect(withCert).toMatchObject({ code: 0, stdout: expect.stringContaining('tls-service') });
    } finally {
      await executive.stop();
    }
  });

  it.each<[string, () => Omit<NatsLinkOptions, 'name' | 'logger' | 'servers'>]>([
    ['the CA but no client certificate', () => ({ tls: { caFile: pki.caFile } })],
    [
      'a client certificate from a CA the server does not trust',
      () => ({ tls: { caFile: pki.caFile, certFile: pki.strangerCertFile, keyFile: pki.strangerKeyFile } }),
    ],
  ])('does not connect with %s', async (_what, security) => {
    open({ servers: server.url, ...security() });
    expect(await firstNatsLine()).toMatchObject({ level: 40, reason: 'TIMEOUT' });
    expect(link!.isConnected()).toBe(false);
  });
});

describe('a link that asks for TLS', () => {
  it.each<[string, (url: string) => Omit<NatsLinkOptions, 'name' | 'logger'>]>([
    ['with tls: {} (--natsTls)', (url) => ({ servers: url, tls: {} })],
    ['with a tls:// URL', (url) => ({ servers: url.replace(/^nats:/, 'tls:') })],
  ])('%s refuses a server that offers none, rather than talk in clear text', async (_what, options) => {
    const plain = await startNatsServer();
    try {
      open(options(plain.url));
      const line = await firstNatsLine();
      expect(line).toMatchObject({ level: 50, err: { code: 'SERVER_OPT_NA', message: 'tls' } });
      expect(link!.isConnected()).toBe(false);
    } finally {
      await link?.drain();
      await plain.dispose();
    }
  });
});

describe('user and password, or a token, in the URL', () => {
  let server: ConfiguredNatsServer;
  afterEach(async () => {
    await link?.drain();
    await server?.dispose();
  });

  it('connects with user:password@ and never logs the password', async () => {
    server = await startConfiguredNatsServer('authorization { user: "svc", password: "pa55-w0rd-xyz" }');
    const nc = await open({ servers: `nats://svc:pa55-w0rd-xyz@127.0.0.1:${server.port}` }).ready();
    expect(await echo(nc)).toBe('ping');
    expect(JSON.stringify(log.lines)).not.toContain('pa55-w0rd-xyz');
  });

  it('is refused with a wrong password, logs an authorization violation and not the password', async () => {
    server = await startConfiguredNatsServer('authorization { user: "svc", password: "pa55-w0rd-xyz" }');
    open({ servers: `nats://svc:wrong-pa55@127.0.0.1:${server.port}` });
    const line = await firstNatsLine();
    expect(line).toMatchObject({ level: 50, err: { code: 'AUTHORIZATION_VIOLATION' } });
    expect(JSON.stringify(log.lines)).not.toContain('wrong-pa55');
  });

  it('connects with token@ and never logs the token', async () => {
    server = await startConfiguredNatsServer('authorization { token: "t0ken-abcdef" }');
    const nc = await open({ servers: `nats://t0ken-abcdef@127.0.0.1:${server.port}` }).ready();
    expect(await echo(nc)).toBe('ping');
    expect(JSON.stringify(log.lines)).not.toContain('t0ken-abcdef');
  });
});

describe('a credentials file against a server in operator mode', () => {
  let setup: OperatorSetup;
  let server: ConfiguredNatsServer;
  let credsFile: string;

  beforeAll(async () => {
    setup = createOperatorSetup();
    server = await startConfiguredNatsServer(setup.serverConfig);
    credsFile = join(tmpdir(), `restbus-test-${process.pid}.creds`);
  });

  beforeEach(async () => {
    await writeFile(credsFile, setup.creds);
  });

  afterAll(async () => {
    await server?.dispose();
    await rm(credsFile, { force: true });
  });

  const secretsOf = (creds: string): string[] => creds.split('\n').filter((line) => /^(eyJ|SU)/.test(line));

  it('connects with the file, carries messages, and never logs its JWT or seed', async () => {
    const nc = await open({ servers: server.url, credsFile }).ready();
    expect(await echo(nc)).toBe('ping');
    const logged = JSON.stringify(log.lines);
    for (const secret of secretsOf(setup.creds)) expect(logged).not.toContain(secret);
  });

  it('is refused without it', async () => {
    open({ servers: server.url });
    expect(await firstNatsLine()).toMatchObject({ level: 50, err: { code: 'AUTHORIZATION_VIOLATION' } });
  });

  it('reads the file at every connect, and keeps the last good one when it turns unreadable, saying so once', async () => {
    const nc = await open({ servers: server.url, credsFile }).ready();
    const stale = (line: { msg: string }): boolean => line.msg.startsWith('the NATS credentials file');
    const reconnect = async (): Promise<void> => {
      const before = log.lines.length;
      await nc.reconnect();
      await log.waitForLine((line) => log.lines.indexOf(line) >= before && /^reconnected to NATS/.test(line.msg));
    };
    await rm(credsFile);
    await reconnect();
    expect(await echo(nc)).toBe('ping');
    await reconnect();
    expect(log.lines.filter(stale)).toEqual([
      expect.objectContaining({
        level: 40,
        msg: `the NATS credentials file ${credsFile} cannot be read (ENOENT); reconnecting with the one read before`,
      }),
    ]);
  });
});
