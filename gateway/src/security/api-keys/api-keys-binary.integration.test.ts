import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { startNatsCluster, type TestNatsCluster } from '@restbus/infra/testing';
import { launchGateway, stopGateway, type RunningGateway } from '../__tests__/run-auth-gateway';
import { hashApiKey } from './api-key-record';

// The program as users run it; jest's global setup builds it.
const MAIN = resolve(__dirname, '../../../dist/main.js');
const BUCKET = 'test_api_keys';

let dir: string;
let cluster: TestNatsCluster;
let service: NatsConnection;
const gateways: RunningGateway[] = [];

/** `restbus-gateway keys <args>` against the cluster's first node, to its end. */
function keys(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [
      MAIN,
      'keys',
      ...args,
      '-n',
      cluster.nodes[0].url,
      '--authKeyBucket',
      BUCKET,
    ]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const status = async (gateway: RunningGateway, key?: string): Promise<number> =>
  (await fetch(`${gateway.url}/reports`, { headers: key === undefined ? {} : { 'x-api-key': key } })).status;

/** Polls until every gateway answers `expected` for the key: a generous deadline, never a measure. */
async function untilAll(expected: number, key: string): Promise<number[]> {
  let seen: number[] = [];
  for (let tries = 0; tries < 200; tries++) {
    seen = await Promise.all(gateways.map((gateway) => status(gateway, key)));
    if (seen.every((code) => code === expected)) break;
    await new Promise((done) => setTimeout(done, 50));
  }
  return seen;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-api-keys-'));
  cluster = await startNatsCluster();
  service = await connect({ servers: cluster.nodes[2].url });
  service.subscribe('easer.>', {
    callback: (_err, msg) => {
      const { request } = msg.json<{ request: { user?: unknown } }>();
      msg.respond(JSON.stringify({ status: 200, body: { user: request.user ?? null } }));
    },
  });
  await service.flush();
  const api = {
    openapi: '3.0.3',
    info: { title: 'reports', version: '1' },
    components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
    security: [{ key: [] }],
    paths: { '/reports': { get: { responses: { '200': { description: 'the reports' } } } } },
  };
  await writeFile(join(dir, 'reports.json'), JSON.stringify(api));
  // Two gateways, each on its own node of the cluster.
  for (const node of cluster.nodes.slice(0, 2)) {
    const args = ['-r', join(dir, 'reports.json'), '-u', '-n', node.url, '--auth', 'verify', '--authKeyBucket', BUCKET];
    gateways.push(await launchGateway(args, { linked: true }));
  }
});
afterAll(async () => {
  await Promise.all(gateways.map(stopGateway));
  await service?.close();
  await cluster?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('API keys kept in NATS for apiKey schemes (--auth verify)', () => {
  let key = '';
  let id = '';

  it('are created by `restbus-gateway keys create`, which shows the key once and keeps only its hash', async () => {
    const created = await keys('create', 'reporting-job', '--scopes', 'reports:read');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    [, id, key] =
      /created the key ([0-9a-f]{12}) for reporting-job \(scopes: reports:read\):\n\n {2}(rbk_[A-Za-z0-9_-]{43})\n/.exec(
        created.stdout,
      ) ?? [];
    expect(key).toMatch(/^rbk_/);
    const nc = await connect({ servers: cluster.nodes[1].url });
    try {
      const kv = await nc.jetstream().views.kv(BUCKET);
      const entry = await kv.get(hashApiKey(key));
      expect(entry?.string()).not.toContain(key);
      expect(JSON.parse(entry!.string())).toMatchObject({ name: 'reporting-job', scopes: ['reports:read'] });
    } finally {
      await nc.close();
    }
  });

  it('are accepted by every gateway, which tells the service the key name and scopes', async () => {
    expect(await untilAll(200, key)).toEqual([200, 200]);
    const answer = await fetch(`${gateways[1].url}/reports`, { headers: { 'x-api-key': key } });
    expect(await answer.json()).toEqual({
      user: { subject: 'reporting-job', schemes: ['key'], scopes: ['reports:read'], claims: {} },
    });
  });

  it('answer 401 with an ApiKey challenge when missing, and TOKEN_INVALID when unknown', async () => {
    const missing = await fetch(`${gateways[0].url}/reports`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('ApiKey in="header", name="X-Api-Key"');
    const unknown = await fetch(`${gateways[0].url}/reports`, { headers: { 'x-api-key': `${key}x` } });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: 'the credentials are not valid', code: 'TOKEN_INVALID' });
  });

  it('are listed by name and id, never by key', async () => {
    const listed = await keys('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`^ID +NAME +CREATED +SCOPES\\n${id} +reporting-job +\\d{4}-\\d\\d-\\d\\dT[^ ]+ +reports:read\\n$`),
    );
    expect(listed.stdout).not.toContain(key);
  });

  it('stop working on every gateway once revoked', async () => {
    const revoked = await keys('revoke', 'reporting-job');
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked the key ${id} of reporting-job\n` });
    expect(await untilAll(401, key)).toEqual([401, 401]);
  });

  it('refuse what cannot be done with a clear message and a failing exit code', async () => {
    expect(await keys('revoke', 'nobody')).toMatchObject({
      code: 1,
      stdout: expect.stringContaining('nothing revoked'),
    });
    expect(await keys('create')).toMatchObject({ code: 2, stderr: expect.stringContaining('create needs a name') });
    expect(await keys('create', ' padded')).toMatchObject({ code: 2 });
    expect(await keys('rotate', 'x')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('use one of create, list, revoke'),
    });
  });

  it('grant nothing for values in the bucket that are no key record, and the gateways keep serving', async () => {
    const nc = await connect({ servers: cluster.nodes[0].url });
    const hostile: Record<string, string> = {
      'rbk_not-json': 'not json',
      'rbk_no-name': JSON.stringify({ created: 'now' }),
      'rbk_name-a-number': JSON.stringify({ name: 5, created: 'now' }),
      'rbk_too-large': JSON.stringify({ name: 'big', created: 'now', pad: 'x'.repeat(5000) }),
      'rbk_scopes-not-strings': JSON.stringify({ name: 'x', created: 'now', scopes: [{}] }),
      'rbk_no-created': JSON.stringify({ name: 'undated' }),
    };
    try {
      const kv = await nc.jetstream().views.kv(BUCKET);
      for (const [planted, value] of Object.entries(hostile)) await kv.put(hashApiKey(planted), value);
      const good = /(rbk_[A-Za-z0-9_-]{43})/.exec((await keys('create', 'after-garbage')).stdout)![1];
      expect(await untilAll(200, good)).toEqual([200, 200]);
      for (const planted of Object.keys(hostile)) {
        expect(await Promise.all(gateways.map((gateway) => status(gateway, planted)))).toEqual([401, 401]);
      }
      expect(gateways.every((gateway) => gateway.child.exitCode === null)).toBe(true);
      // The command lists the keys and skips what the gateways skip.
      const listed = await keys('list');
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect(listed.stdout).toContain('after-garbage');
      expect(listed.stdout).not.toContain('undated');
      const warned = gateways[0].log.filter((line) => line.includes('no key record'));
      expect(warned).toHaveLength(Object.keys(hostile).length);
    } finally {
      await nc.close();
    }
  });
});
