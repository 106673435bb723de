// The packages as users get them: packed with `npm pack`, installed into an empty folder, run from there.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { REPO_ROOT } from './compose-stack';

const execFileAsync = promisify(execFile);

/** The packages a user installs, by name and folder; the e2e package is private and never packed. */
const PRODUCTS = [
  { name: 'infra', dir: 'infra/runtime' },
  { name: 'project-format', dir: 'infra/project-format' },
  { name: 'gateway', dir: 'gateway' },
  { name: 'person-service', dir: 'person-service' },
  { name: 'systems-service', dir: 'systems-service' },
  { name: 'mock-server', dir: 'mock-server' },
  { name: 'tool', dir: 'tool' },
];
/** The libraries have no program of their own. */
const WITHOUT_BIN = new Set(['project-format']);
const BINS = [
  'person-service',
  'rest-tool',
  'restbus-gateway',
  'restbus-healthcheck',
  'restbus-mock',
  'systems-service',
];

let work: string;
let packs: string;
let app: string;
const children: ChildProcess[] = [];

async function run(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { cwd, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 });
    return stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stderr ?? ''}${stdout ?? ''}`);
  }
}

/** Starts a long-running program and resolves with the first JSON log line whose msg is `msg`. */
function startUntilLogged(
  command: string,
  args: string[],
  cwd: string,
  msg: string,
): Promise<{ child: ChildProcess; line: Record<string, unknown> }> {
  const child = spawn(command, args, { cwd, env: { ...process.env, LOG_FORMAT: 'json' } });
  children.push(child);
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (text) => {
      output += `${text}\n`;
      try {
        const line = JSON.parse(text) as Record<string, unknown>;
        if (line.msg === msg) resolve({ child, line });
      } catch {
        // not a log line
      }
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'restbus-install-'));
  packs = join(work, 'packs');
  app = join(work, 'app');
  await mkdir(app);
  await mkdir(packs);
  const workspaces = PRODUCTS.flatMap(({ dir }) => ['-w', dir]);
  await run('npm', ['pack', ...workspaces, '--pack-destination', packs, '--silent'], REPO_ROOT);
  const tarballs = (await readdir(packs)).map((file) => join(packs, file));
  // --prefer-offline: third-party packages come from the npm cache that `npm ci` filled; the restbus packages
  // must resolve among the tarballs, since a missing one would be looked up (and not found) in the registry.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], app);
}, 300_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed packages', () => {
  it('are one tarball per product package, and the private e2e package is not among them', async () => {
    expect((await readdir(packs)).sort()).toEqual(PRODUCTS.map(({ name }) => `restbus-${name}-0.1.0.tgz`).sort());
  });

  it('install into an empty folder with every binary on node_modules/.bin', async () => {
    const bins = await readdir(join(app, 'node_modules', '.bin'));
    expect(bins).toEqual(expect.arrayContaining(BINS));
  });

  it('carry a README, the licence and the built code, and no sources, tests or benchmarks', async () => {
    for (const { name, dir: source } of PRODUCTS) {
      const dir = join(app, 'node_modules', '@restbus', name);
      const files = await readdir(dir);
      const expected = ['README.md', 'LICENSE', 'package.json', 'dist', ...(WITHOUT_BIN.has(name) ? [] : ['bin'])];
      expect(files).toEqual(expect.arrayContaining(expected));
      expect(files).not.toContain('src');
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(manifest).toMatchObject({
        license: 'MIT',
        engines: { node: expect.any(String) },
        repository: { type: 'git', directory: source },
        files: expect.arrayContaining(['dist']),
      });
      expect(manifest.private).toBeUndefined();
      const listing = await run('find', ['.', '-type', 'f'], dir);
      expect(listing).not.toMatch(/\.test\.|__tests__|\/bench\/|tsbuildinfo/);
    }
  });
});

describe('a release', () => {
  it('has every package at the root version, depending on its siblings at exactly that version', async () => {
    const readManifest = async (dir: string) =>
      JSON.parse(await readFile(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        private?: boolean;
        dependencies?: Record<string, string>;
      };
    const root = await readManifest('.');
    const manifests = await Promise.all([...PRODUCTS.map(({ dir }) => dir), 'e2e'].map(readManifest));
    for (const manifest of manifests) {
      expect(`${manifest.name}@${manifest.version}`).toBe(`${manifest.name}@${root.version}`);
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        if (name.startsWith('@restbus/')) expect(`${manifest.name} -> ${name}@${range}`).toContain(`@${root.version}`);
      }
    }
    expect(manifests.filter((manifest) => manifest.private).map((manifest) => manifest.name)).toEqual(['@restbus/e2e']);
  });
});

describe('a new user with the installed packages', () => {
  it('creates a project with rest-tool and serves it with node server/server', async () => {
    await run(join(app, 'node_modules', '.bin', 'rest-tool'), ['create', 'demo'], app);
    const demo = join(app, 'demo');
    const { child, line } = await startUntilLogged(
      process.execPath,
      ['server/server', '--port', '0', '--host', '127.0.0.1', '--no-watch'],
      demo,
      'serving',
    );
    const response = await fetch(`${line.url as string}/rest/monitoring/isAlive`);
    expect(response.status).toBe(200);
    expect(await response.json()).toBe(true);
    const exited = exitOf(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it("serves the project's exported OpenAPI file with restbus-gateway -r, answering 501 without -u", async () => {
    const demo = join(app, 'demo');
    await run(join(app, 'node_modules', '.bin', 'rest-tool'), ['export-oas', '-o', 'api.yml'], demo);
    const { child, line } = await startUntilLogged(
      join(app, 'node_modules', '.bin', 'restbus-gateway'),
      ['-r', 'api.yml', '--port', '0'],
      demo,
      'gateway listening',
    );
    const base = `http://127.0.0.1:${line.port as number}`;
    const described = await fetch(`${base}/rest/monitoring/isAlive`);
    expect(described.status).toBe(501);
    expect((await fetch(`${base}/not/described`)).status).toBe(404);
    const exited = exitOf(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
