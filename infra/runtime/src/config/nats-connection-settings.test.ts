import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { checkCertFile } from '../nats/check-tls-files';
import { createOperatorSetup, type OperatorSetup } from '../nats/__tests__/create-operator-creds';
import { createTestPki, type TestPki } from '../nats/__tests__/create-test-pki';
import { natsConnectionSettings, toNatsLinkOptions, type NatsConnectionConfig } from './common-settings';
import { loadConfig } from './load-config';

const run = promisify(execFile);

let pki: TestPki;
let setup: OperatorSetup;
const file = (name: string): string => join(pki.dir, name);

beforeAll(async () => {
  [pki, setup] = await Promise.all([createTestPki(), createOperatorSetup()]);
  await Promise.all([
    writeFile(file('good.creds'), setup.creds),
    writeFile(file('expired.creds'), setup.expiredCreds),
    writeFile(file('mismatched.creds'), setup.mismatchedCreds),
    writeFile(file('garbled.creds'), setup.creds.replace(/-----BEGIN USER NKEY SEED-----[\s\S]*$/, '')),
    mkdir(file('a-folder')),
    run('openssl', ['pkey', '-in', pki.clientKeyFile, '-aes256', '-passout', 'pass:secret', '-out', file('enc.key')]),
  ]);
});

afterAll(async () => {
  await pki?.dispose();
});

function load(argv: string[], env: Record<string, string> = {}): Readonly<NatsConnectionConfig> {
  return loadConfig<NatsConnectionConfig>(
    { name: 'demo', version: '0', description: 'demo', settings: natsConnectionSettings },
    { argv, env },
  );
}

describe('the NATS connection settings', () => {
  it('take the credentials file, CA, client certificate and key from flags, kebab spellings or variables', () => {
    const fromFlags = load([
      '--natsCreds',
      file('good.creds'),
      '--nats-ca',
      pki.caFile,
      '--natsCert',
      pki.clientCertFile,
      '--nats-key',
      pki.clientKeyFile,
    ]);
    const fromEnv = load([], {
      NATS_CREDS: file('good.creds'),
      NATS_CA: pki.caFile,
      NATS_CERT: pki.clientCertFile,
      NATS_KEY: pki.clientKeyFile,
    });
    const expected = {
      servers: 'nats://localhost:4222',
      tls: { caFile: pki.caFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile },
      credsFile: file('good.creds'),
    };
    expect(toNatsLinkOptions(fromFlags)).toEqual(expected);
    expect(toNatsLinkOptions(fromEnv)).toEqual(expected);
  });

  it('leave TLS to the server unless --natsTls, NATS_TLS or a TLS file asks for it', () => {
    expect(toNatsLinkOptions(load([]))).toEqual({ servers: 'nats://localhost:4222' });
    expect(toNatsLinkOptions(load(['--natsTls']))).toEqual({ servers: 'nats://localhost:4222', tls: {} });
    expect(toNatsLinkOptions(load([], { NATS_TLS: 'true' }))).toMatchObject({ tls: {} });
    expect(toNatsLinkOptions(load(['--natsCa', pki.caFile]))).toMatchObject({ tls: { caFile: pki.caFile } });
  });

  it.each<[string, () => string[], string]>([
    ['a credentials file that is not there', () => ['--natsCreds', '/nowhere/x.creds'], 'no such file'],
    ['a folder for the CA', () => ['--natsCa', file('a-folder')], 'is a folder, not a file'],
    [
      'a credentials file without its seed',
      () => ['--natsCreds', file('garbled.creds')],
      'is not a NATS credentials file (a user JWT and an nkey seed)',
    ],
    [
      "a seed that is not the JWT's user",
      () => ['--natsCreds', file('mismatched.creds')],
      "holds an nkey seed that is not the JWT's user",
    ],
    ['an expired user JWT', () => ['--natsCreds', file('expired.creds')], 'holds a user JWT that expired on '],
    [
      'a key given as the CA',
      () => ['--natsCa', pki.clientKeyFile],
      'holds no PEM certificate (-----BEGIN CERTIFICATE-----)',
    ],
    ['a key given as the certificate', () => ['--natsCert', pki.clientKeyFile], 'holds no PEM certificate'],
    ['a certificate given as the key', () => ['--natsKey', pki.clientCertFile], 'holds no private key in PEM form'],
    ['an encrypted key', () => ['--natsKey', file('enc.key')], 'is an encrypted private key'],
  ])('refuse %s at start, naming the setting and the file', (_what, argv, problem) => {
    const [flag, path] = argv();
    const setting = natsConnectionSettings.find((candidate) => candidate.flags.startsWith(flag))!;
    let message = '';
    try {
      load(argv());
    } catch (err) {
      expect(err).toMatchObject({ code: 'CONFIG_INVALID' });
      message = (err as Error).message;
    }
    expect(message).toContain(`${flag} / ${setting.env}: ${problem}`);
    expect(message).toContain(`(got ${JSON.stringify(path)})`);
    // Never a word of what is in the file.
    expect(message).not.toMatch(/eyJ|SU[A-Z2-7]{20}|MII/);
  });

  it('refuse a certificate that is not valid yet or any more', () => {
    expect(checkCertFile(pki.clientCertFile)).toBeUndefined();
    // A day past its end and a day before its start, as the certificate itself says: no clock read.
    const cert = new X509Certificate(readFileSync(pki.clientCertFile));
    const day = 86_400_000;
    expect(checkCertFile(pki.clientCertFile, new Date(new Date(cert.validTo).getTime() + day))).toMatch(
      /^holds a certificate that expired on /,
    );
    expect(checkCertFile(pki.clientCertFile, new Date(new Date(cert.validFrom).getTime() - day))).toMatch(
      /^holds a certificate that is valid only from /,
    );
  });

  it.each<[string, () => string[], RegExp]>([
    [
      'a certificate without its key',
      () => ['--natsCert', pki.clientCertFile],
      /--natsCert \/ NATS_CERT: needs --natsKey \/ NATS_KEY \(got ".*client\.pem"\)/,
    ],
    [
      'a key without its certificate',
      () => ['--natsKey', pki.clientKeyFile],
      /--natsKey \/ NATS_KEY: needs --natsCert \/ NATS_CERT \(got ".*client\.key"\)/,
    ],
    [
      'a key that is not the certificate’s',
      () => ['--natsCert', pki.clientCertFile, '--natsKey', pki.strangerKeyFile],
      /--natsKey \/ NATS_KEY: is not the private key of the client certificate .*client\.pem \(got ".*stranger\.key"\)/,
    ],
    [
      'a credentials file beside a user in the URL',
      () => ['--natsCreds', file('good.creds'), '-n', 'nats://svc:pw@localhost:4222'],
      /--natsCreds \/ NATS_CREDS: a user or token in --natsUri \/ NATS_URL as well; give one or the other/,
    ],
  ])('refuse %s', (_what, argv, message) => {
    const config = load(argv());
    expect(() => toNatsLinkOptions(config)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => toNatsLinkOptions(config)).toThrow(message);
  });
});

describe('a program given a NATS setting it cannot use', () => {
  const root = resolve(__dirname, '../../../..');

  it.each<[string, () => string[], RegExp]>([
    [
      'person-service',
      () => [join(root, 'person-service/dist/main.js'), '--natsCreds', '/nowhere/x.creds'],
      /^person-service: invalid configuration: --natsCreds \/ NATS_CREDS: no such file \(got "\/nowhere\/x\.creds"\)\n$/,
    ],
    [
      'restbus-gateway',
      () => [join(root, 'gateway/dist/main.js'), '-r', 'api.yml', '--natsCert', pki.clientCertFile],
      /^restbus-gateway: invalid configuration: --natsCert \/ NATS_CERT: needs --natsKey \/ NATS_KEY \(got ".*"\)\n$/,
    ],
  ])('%s exits 2 with one line naming the setting and the file', async (_program, args, line) => {
    const failure = await run(process.execPath, args(), { timeout: 120_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure.code).toBe(2);
    expect(failure.stderr).toMatch(line);
  });
});
