import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestPki {
  readonly dir: string;
  /** The CA that signed the server's and the client's certificates. */
  readonly caFile: string;
  /** A certificate for 127.0.0.1 and localhost, and its key. */
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  /** A client certificate signed by the CA, and its key. */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** A client certificate and key from another CA, which the servers do not trust. */
  readonly strangerCertFile: string;
  readonly strangerKeyFile: string;
  dispose(): Promise<void>;
}

/** Makes a throwaway certificate authority and certificates with the openssl command (P-256 keys, valid a day). */
export async function createTestPki(): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), 'restbus-pki-'));
  const at = (name: string): string => join(dir, name);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const selfSignedCa = (name: string) =>
    openssl(
      'req',
      '-x509',
      ...newKey,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
    );
  const issue = async (name: string, ca: string, extensions: string) => {
    await writeFile(at(`${name}.ext`), extensions);
    await openssl('req', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    await openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.pem`,
      '-CAkey',
      `${ca}.key`,
      // A serial of its own instead of -CAcreateserial: certificates are issued in parallel.
      '-set_serial',
      `0x${randomBytes(8).toString('hex')}`,
      '-out',
      `${name}.pem`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
    );
  };
  await Promise.all([selfSignedCa('ca'), selfSignedCa('stranger-ca')]);
  await Promise.all([
    issue('server', 'ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'),
    issue('client', 'ca', 'extendedKeyUsage=clientAuth\n'),
    issue('stranger', 'stranger-ca', 'extendedKeyUsage=clientAuth\n'),
  ]);
  return {
    dir,
    caFile: at('ca.pem'),
    serverCertFile: at('server.pem'),
    serverKeyFile: at('server.key'),
    clientCertFile: at('client.pem'),
    clientKeyFile: at('client.key'),
    strangerCertFile: at('stranger.pem'),
    strangerKeyFile: at('stranger.key'),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
