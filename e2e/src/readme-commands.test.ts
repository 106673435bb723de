// The READMEs' shell blocks, run as written: the install from packs first (the packages as users get them), then
// each package README's recipe with those packages on the PATH. Blocks that need a stack run on the one the e2e
// suite has up (readme-recipes.cases.ts); the rest are skipped with a reason. readme-recipes.ts holds the rules.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { REPO_ROOT } from './compose-stack';
import { findReadmes, readShellBlocks, type ShellBlock } from './readme-blocks';
import {
  REAL_API_ANSWER,
  RULES,
  createRecipeContext,
  isRunRule,
  opensBlock,
  productPackages,
  runRule,
  summarizeRun,
  type BlockRule,
  type RecipeContext,
} from './readme-recipes';
import type { RecipeRun } from './run-recipe';

const execFileAsync = promisify(execFile);

/**
 * The ports servers take when a README names none (the gateway's and a new project's 3007, the example's 3008) and
 * the tool container's 3017: the test's own port stands in for each; a block that names another gets one too.
 */
const README_PORTS = [3007, 3008, 3017];
/** Which e2e file runs the blocks of each stack, and the call that does. */
const STACK_RUNNERS = {
  'compose stack': { file: 'e2e/src/stack.e2e.test.ts', call: 'describeReadmeRecipesOnComposeStack(' },
  'cluster stack': { file: 'e2e/src/cluster.e2e.test.ts', call: 'describeReadmeRecipesOnClusterStack(' },
};

let work: string;
let ctx: RecipeContext;
let nats: TestNatsServer | undefined;
let realApi: Server | undefined;
const kept: RecipeRun[] = [];
const report: string[] = [];

/** This machine's environment as a new terminal has it: no npm script variables, no node_modules/.bin. */
function terminalEnvironment(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'),
  );
  const path = (process.env.PATH ?? '').split(':').filter((dir) => dir && !dir.includes('node_modules/.bin'));
  return {
    ...env,
    PATH: path.join(':'),
    // Third-party packages from the cache `npm ci` filled (the repository's lockfile pins the same versions).
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
}

function describeRule(rule: BlockRule | undefined): string {
  if (!rule) return 'NOT CLASSIFIED';
  if (!isRunRule(rule)) return `skipped: ${rule.skip}`;
  return rule.runs === 'here' ? 'run here' : `run on the ${rule.runs} by ${STACK_RUNNERS[rule.runs].file}`;
}

function allBlocks(): ShellBlock[] {
  return findReadmes(REPO_ROOT).flatMap((readme) => readShellBlocks(REPO_ROOT, readme));
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'restbus-readme-'));
  const ports = new Map<number, number>();
  for (const port of README_PORTS) ports.set(port, await freePort());
  nats = await startNatsServer();
  realApi = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(REAL_API_ANSWER));
  });
  await new Promise<void>((resolve) => realApi!.listen(0, '127.0.0.1', resolve));
  const { port } = realApi.address() as { port: number };
  ctx = await createRecipeContext({
    work,
    env: terminalEnvironment(),
    ports,
    nats: nats.url,
    realApi: `http://127.0.0.1:${port}`,
  });
});

afterAll(async () => {
  await Promise.all(kept.map((run) => run.stop()));
  await nats?.dispose();
  await new Promise((resolve) => (realApi ? realApi.close(resolve) : resolve(undefined)));
  if (work) await rm(work, { recursive: true, force: true });
  process.stdout.write(`\nREADME shell blocks:\n${report.join('\n')}\n`);
});

describe('every shell block of the READMEs', () => {
  it('is run here, run on a stack the e2e suite has up, or skipped with a reason', () => {
    const blocks = allBlocks();
    expect(blocks.length).toBeGreaterThan(20);
    const unnamed: string[] = [];
    for (const block of blocks) {
      const rules = RULES.filter((rule) => rule.readme === block.readme && opensBlock(rule, block));
      report.push(`  ${block.readme}:${block.line}  ${describeRule(rules[0])}`);
      if (rules.length !== 1) {
        unnamed.push(
          `${block.readme}:${block.line} (opens with \`${block.commands[0]?.command}\`) is named by ${rules.length} rules`,
        );
      }
    }
    // A new block needs a rule in readme-recipes.ts: how the suite runs it, or why it cannot.
    expect(unnamed).toEqual([]);
  });

  it('is what each rule names: no rule is left without its block', () => {
    const blocks = allBlocks();
    const stale = RULES.filter(
      (rule) => !blocks.some((block) => block.readme === rule.readme && opensBlock(rule, block)),
    );
    expect(stale.map((rule) => `${rule.readme}: ${rule.opens}`)).toEqual([]);
  });

  it('runs on a stack only where that stack e2e file runs the README cases', async () => {
    for (const [where, { file, call }] of Object.entries(STACK_RUNNERS)) {
      if (!RULES.some((rule) => isRunRule(rule) && rule.runs === where)) continue;
      expect(
        `${file} ${(await readFile(join(REPO_ROOT, file), 'utf8')).includes(call) ? 'calls' : 'lacks'} ${call}`,
      ).toBe(`${file} calls ${call}`);
    }
  });
});

describe('the READMEs run here, as written', () => {
  // In order: the install recipe first, whose packages the later ones run.
  for (const rule of RULES.filter(isRunRule).filter((one) => one.runs === 'here')) {
    it(`${rule.readme}: ${rule.does}`, async () => {
      const run = await runRule(rule, ctx);
      if (rule.keepRunning) kept.push(run);
      report.push(`  ${summarizeRun(run)}`);
    }, 300_000);
  }
});

describe('the packages installed by the README recipe', () => {
  const installed = () => join(work, 'my-apis');

  it('carry a README, the licence and the built code, and no sources, tests or benchmarks', async () => {
    for (const { dir: source, manifest: expected } of await productPackages()) {
      const dir = join(installed(), 'node_modules', expected.name);
      const files = await readdir(dir);
      const required = ['README.md', 'LICENSE', 'package.json', 'dist', ...(expected.bin ? ['bin'] : [])];
      expect(files).toEqual(expect.arrayContaining(required));
      expect(files).not.toContain('src');
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(manifest).toMatchObject({
        license: 'MIT',
        engines: { node: expect.any(String) },
        repository: { type: 'git', directory: source },
        files: expect.arrayContaining(['dist']),
      });
      const { stdout: listing } = await execFileAsync('find', ['.', '-type', 'f'], { cwd: dir });
      const notForUsers = listing.split('\n').filter((file) => /\.test\.|__tests__|\/bench\/|tsbuildinfo/.test(file));
      expect(`${expected.name}: ${notForUsers.join(', ')}`).toBe(`${expected.name}: `);
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
        workspaces?: string[];
      };
    const root = await readManifest('.');
    const manifests = await Promise.all(root.workspaces!.map(readManifest));
    for (const manifest of manifests) {
      expect(`${manifest.name}@${manifest.version}`).toBe(`${manifest.name}@${root.version}`);
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        if (name.startsWith('@restbus/')) expect(`${manifest.name} -> ${name}@${range}`).toContain(`@${root.version}`);
      }
    }
    // `npm publish --workspaces` skips them; the README's pack recipe names the others. The development issuer signs a
    // token for anyone who asks: a compose service and a workspace, never a package to install.
    expect(manifests.filter((manifest) => manifest.private).map((manifest) => manifest.name)).toEqual([
      '@restbus/dev-issuer',
      '@restbus/e2e',
    ]);
  });
});
