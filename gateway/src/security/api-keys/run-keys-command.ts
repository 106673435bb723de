import type { KV } from 'nats';
import { RestbusError } from '@restbus/infra';
import { API_KEY_NAME, createApiKey, hashApiKey, readApiKeyRecord, type ApiKeyRecord } from './api-key-record';
import { KEY_ACTIONS, type KeysConfig } from './keys-program';

/** A key's id in lists and for revoking: the first 12 characters of its hash (not the key, which is shown once). */
export const idOf = (hash: string): string => hash.slice(0, 12);

interface Listed {
  id: string;
  hash: string;
  record: ApiKeyRecord;
}

async function listKeys(kv: KV): Promise<Listed[]> {
  const listed: Listed[] = [];
  // The names first, then each value: awaiting a get inside the keys' iteration ended it after the first key.
  const hashes: string[] = [];
  for await (const hash of await kv.keys()) hashes.push(hash);
  for (const hash of hashes) {
    const entry = await kv.get(hash);
    if (!entry || entry.operation !== 'PUT') continue;
    // A value that is no key record is skipped, as the gateways skip it.
    const record = readApiKeyRecord(entry.value);
    if (record) listed.push({ id: idOf(hash), hash, record });
  }
  return listed.sort(
    (a, b) => a.record.name.localeCompare(b.record.name) || a.record.created.localeCompare(b.record.created),
  );
}

/** Printed names: what a terminal would act on (controls) shown escaped. */
const printable = (text: string): string => JSON.stringify(text).slice(1, -1);

/**
 * Runs one `restbus-gateway keys` action on the bucket: writes what a person reads to `out`, resolves the exit code.
 * A name that is no name, an unknown action or nothing to revoke is a RestbusError with what to do instead.
 */
export async function runKeysCommand(
  kv: KV,
  config: KeysConfig,
  out: (line: string) => void,
  now = new Date(),
): Promise<number> {
  const { action, name } = config;
  if (action === 'create') {
    if (name === undefined || !API_KEY_NAME.test(name)) {
      throw new RestbusError(
        'CONFIG_INVALID',
        'create needs a name for the key: 1 to 200 printable characters (restbus-gateway keys create <name>)',
      );
    }
    const key = createApiKey();
    const hash = hashApiKey(key);
    const record: ApiKeyRecord = {
      name,
      created: now.toISOString(),
      ...(config.scopes?.length && { scopes: config.scopes }),
    };
    // create, not put: a key is never written over another.
    await kv.create(hash, JSON.stringify(record));
    out(
      `created the key ${idOf(hash)} for ${printable(name)}${record.scopes ? ` (scopes: ${record.scopes.join(' ')})` : ''}:`,
    );
    out('');
    out(`  ${key}`);
    out('');
    out('It is shown this once: the gateways keep only its hash. Every gateway watching the bucket accepts it now.');
    return 0;
  }
  if (action === 'list') {
    const keys = await listKeys(kv);
    if (keys.length === 0) {
      out(`no keys in the bucket ${config.authKeyBucket}`);
      return 0;
    }
    const rows = [
      ['ID', 'NAME', 'CREATED', 'SCOPES'],
      ...keys.map(({ id, record }) => [id, printable(record.name), record.created, (record.scopes ?? []).join(' ')]),
    ];
    const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
    for (const row of rows)
      out(
        row
          .map((cell, column) => cell.padEnd(widths[column]))
          .join('  ')
          .trimEnd(),
      );
    return 0;
  }
  if (action === 'revoke') {
    if (name === undefined)
      throw new RestbusError(
        'CONFIG_INVALID',
        "revoke needs a key's name or id (restbus-gateway keys list shows them)",
      );
    const keys = await listKeys(kv);
    const byId = keys.filter(({ id }) => id === name);
    const byName = keys.filter(({ record }) => record.name === name);
    if (byId.length > 0 && byName.length > 0) {
      out(`${printable(name)} is both a key's id and a name: nothing revoked (revoke the other by its own id)`);
      return 1;
    }
    const chosen = byId.length > 0 ? byId : byName;
    if (chosen.length === 0) {
      out(`no key named or with the id ${printable(name)}: nothing revoked (restbus-gateway keys list shows the keys)`);
      return 1;
    }
    // Purged, not deleted: nothing of the key stays in the bucket's history.
    for (const { hash } of chosen) await kv.purge(hash);
    for (const { id, record } of chosen) out(`revoked the key ${id} of ${printable(record.name)}`);
    return 0;
  }
  throw new RestbusError('CONFIG_INVALID', `unknown action ${printable(action)}: use one of ${KEY_ACTIONS.join(', ')}`);
}
