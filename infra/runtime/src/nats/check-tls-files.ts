import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readSettingFile } from './read-setting-file';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function parseCertificates(bytes: Buffer): X509Certificate[] | string {
  const blocks = bytes.toString('latin1').match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)';
  const certificates: X509Certificate[] = [];
  for (const [index, block] of blocks.entries()) {
    try {
      certificates.push(new X509Certificate(block));
    } catch {
      return blocks.length === 1
        ? 'holds a certificate that does not parse'
        : `certificate ${index + 1} of ${blocks.length} does not parse`;
    }
  }
  return certificates;
}

// PKCS#8 and the older OpenSSL form; Node says only "interrupted or cancelled" (or a missing passphrase) for them.
const ENCRYPTED_KEY = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/;

function parsePrivateKey(bytes: Buffer): KeyObject | string {
  // nats.js hands the key to Node's TLS without a passphrase, so an encrypted key could never be used.
  if (ENCRYPTED_KEY.test(bytes.toString('latin1')))
    return 'is an encrypted private key; NATS clients take it unencrypted (openssl pkey -in <file> -out <plain file>)';
  try {
    return createPrivateKey(bytes);
  } catch {
    return 'holds no private key in PEM form';
  }
}

/** Says what is wrong with a CA bundle file (`--natsCa`), or undefined: it must hold PEM certificates that parse. */
export function checkCaFile(path: unknown): string | undefined {
  const read = readSettingFile(path);
  if ('problem' in read) return read.problem;
  const certificates = parseCertificates(read.bytes);
  return typeof certificates === 'string' ? certificates : undefined;
}

/** Says what is wrong with a client certificate file (`--natsCert`), or undefined; an expired one is refused. */
export function checkCertFile(path: unknown, now = new Date()): string | undefined {
  const read = readSettingFile(path);
  if ('problem' in read) return read.problem;
  const certificates = parseCertificates(read.bytes);
  if (typeof certificates === 'string') return certificates;
  const validTo = new Date(certificates[0].validTo);
  if (validTo < now) return `holds a certificate that expired on ${validTo.toISOString()}`;
  const validFrom = new Date(certificates[0].validFrom);
  if (validFrom > now) return `holds a certificate that is valid only from ${validFrom.toISOString()}`;
  return undefined;
}

/** Says what is wrong with a client key file (`--natsKey`), or undefined. */
export function checkKeyFile(path: unknown): string | undefined {
  const read = readSettingFile(path);
  if ('problem' in read) return read.problem;
  const key = parsePrivateKey(read.bytes);
  return typeof key === 'string' ? key : undefined;
}

/** Says why a key file is not the private key of a certificate file, or undefined when it is (or cannot be read). */
export function checkKeyPair(certPath: string, keyPath: string): string | undefined {
  const cert = readSettingFile(certPath);
  const key = readSettingFile(keyPath);
  if ('problem' in cert || 'problem' in key) return undefined; // each file's own check says why
  const certificates = parseCertificates(cert.bytes);
  const privateKey = parsePrivateKey(key.bytes);
  if (typeof certificates === 'string' || typeof privateKey === 'string') return undefined;
  return certificates[0].checkPrivateKey(privateKey) ? undefined : 'is not the private key of the client certificate';
}
