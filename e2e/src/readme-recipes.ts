// Every shell block of the READMEs, and what the suite does with it: runs it (on this machine, or on a stack the e2e
// suite has up) or leaves it out, with the reason. A block no rule names fails readme-commands.test.ts.
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './compose-stack';
import { readShellBlocks, type ShellBlock } from './readme-blocks';
import { runRecipe, type RecipeOptions, type RecipeRun, type SkipCommand } from './run-recipe';

/** Where a block's commands run: here (no Docker), or on the stack stack.e2e / cluster.e2e has up. */
export type Where = 'here' | 'compose stack' | 'cluster stack';

/** What one run of blocks has: its folders, its ports, the servers of the reader's it stands in for. */
export interface RecipeContext {
  /** A new empty folder for one block, its name starting with `name`. */
  folder(name: string): Promise<string>;
  /** The environment of every command: a terminal's, with the programs the install recipe installed on the PATH. */
  env: NodeJS.ProcessEnv;
  /** A new terminal's environment, before the install. */
  terminalEnv: NodeJS.ProcessEnv;
  /** The READMEs' host ports and the ports this run uses for them (run-recipe.ts adds the ones a block names). */
  ports: Map<number, number>;
  /** What the READMEs' placeholders stand for in this run (createRecipeContext). */
  placeholders: Array<[text: string, by: string]>;
}

interface RuleBase {
  /** The README, relative to the repository. */
  readme: string;
  /** The block's first command as written (without its comment); ending in `…`, the start of it. */
  opens: string;
}

export interface SkipRule extends RuleBase {
  skip: string;
}

export interface RunRule extends RuleBase {
  runs: Where;
  /** What running it shows, as the end of a sentence: the test's name. */
  does: string;
  skipCommands?: SkipCommand[];
  /** Where the reader stands when the block starts, and what the reader has there. */
  prepare?(ctx: RecipeContext): Promise<Partial<Pick<RecipeOptions, 'cwd' | 'env' | 'replace' | 'userFiles'>>>;
  check?(run: RecipeRun, ctx: RecipeContext): Promise<void>;
  /** Its servers stay up for the blocks after it (stopped at the end of the file). */
  keepRunning?: boolean;
}

export type BlockRule = SkipRule | RunRule;

export const isRunRule = (rule: BlockRule): rule is RunRule => 'runs' in rule;

/** What a context is made of; the placeholders follow from it. */
export interface ContextOptions {
  /** The run's own folder: every folder of the reader's is made below it. */
  work: string;
  /** A terminal's environment; the programs the install recipe installs (in ~/my-apis) are put on its PATH. */
  env: NodeJS.ProcessEnv;
  ports: Map<number, number>;
  /** The URL of the NATS server standing for the reader's. */
  nats?: string;
  /** The URL of the HTTP server standing for the reader's real API (record mode). */
  realApi?: string;
  /** Which compose is installed: v1 (`docker-compose`) or v2 (`docker compose`); undefined: no stack runs here. */
  standaloneCompose?: boolean;
  /** The project name of the cluster stack the e2e suite has up. */
  clusterProject?: string;
}

/**
 * What the READMEs' placeholders stand for: the reader's clone, folders and servers, the compose this machine has,
 * the cluster's project name. Nothing else of a command changes, but the host ports (ports this run picks, so that
 * a run never meets a stack the developer has up: see run-recipe.ts).
 */
export async function createRecipeContext(options: ContextOptions): Promise<RecipeContext> {
  const { work, nats, realApi, env } = options;
  const placeholders: Array<[string, string]> = [
    ['~/restbus', REPO_ROOT], // the reader's clone of this repository: the one under test
    ['~/my-apis', join(work, 'my-apis')], // the reader's folder for the packages, not there yet
    ['~/apis', join(work, 'apis')], // a folder the reader has (made, empty)
    ['/tmp/restbus-packs', join(work, 'restbus-packs')], // where the reader puts the packs, not there yet
    ...(nats ? [['nats://localhost:4222', nats] as [string, string]] : []), // the reader's NATS server
    ...(realApi ? [['http://localhost:8080', realApi] as [string, string]] : []), // the reader's real API
    // The READMEs give both spellings of compose; the one this machine has stands for the other.
    ...(options.standaloneCompose === true ? [['docker compose ', 'docker-compose '] as [string, string]] : []),
    ...(options.standaloneCompose === false ? [['docker-compose ', 'docker compose '] as [string, string]] : []),
    // The cluster's project name in the README: the e2e cluster's.
    ...(options.clusterProject ? [['-p restbus-cluster', `-p ${options.clusterProject}`] as [string, string]] : []),
  ];
  await mkdir(join(work, 'apis'), { recursive: true });
  await mkdir(join(work, 'folders'), { recursive: true });
  // Where `npm install --global` would have put the programs.
  const installed = join(work, 'my-apis', 'node_modules', '.bin');
  return {
    env: { ...env, PATH: [installed, env.PATH].filter(Boolean).join(':') },
    terminalEnv: env,
    ports: options.ports,
    placeholders,
    folder: (name) => mkdtemp(join(work, 'folders', `${name}-`)),
  };
}

/** Files the reader brings: the fixtures of the tool's own tests. */
const USER_FILES = {
  'services.json': join(REPO_ROOT, 'tool/src/__tests__/fixtures/services.json'),
  'petstore.yaml': join(REPO_ROOT, 'tool/src/__tests__/fixtures/import-oas/petstore.yaml'),
};

const composeUpOrDown: SkipCommand = {
  command: /^docker(-| )compose\b.* (up|down)\b/,
  reason: 'the e2e suite brings the same file up and down itself, under a fresh project name on free host ports',
};

/** What `curl -i` printed: the status, the headers (names in lower case) and the body. */
function readCurlAnswer(output: string): { status: number; headers: Record<string, string>; body: string } {
  const [head, ...body] = output.split(/\r?\n\r?\n/);
  const [statusLine, ...lines] = head.split(/\r?\n/);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.join('\n\n') };
}

/** The generated tests passed: node --test prints its tally last. */
function expectTestsPassed(run: RecipeRun): void {
  const tally = run.stdoutOf(/^node --test test\/$/);
  expect(tally).toMatch(/^# fail 0$/m);
  expect(tally).toMatch(/^# pass [1-9]/m);
}

async function fetchText(url: string): Promise<string> {
  const response = await fetch(url);
  return `${response.status} ${await response.text()}`;
}

/** A project as `rest-tool create` makes it, with the installed tool, in a new folder: the reader's project. */
async function createProject(ctx: RecipeContext, name: string): Promise<string> {
  const folder = await ctx.folder(name);
  const run = await runRecipe(
    { readme: 'the test', line: 0, commands: [{ command: `rest-tool create ${name}`, comment: '', line: 0 }] },
    { cwd: folder, env: ctx.env, replace: [], ports: ctx.ports },
  );
  await run.stop();
  return folder;
}

const packageDirs = async (): Promise<string[]> =>
  (JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  bin?: Record<string, string>;
}
const readManifest = async (dir: string): Promise<Manifest> =>
  JSON.parse(await readFile(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as Manifest;

/** The packages a user installs: every workspace that is not private, by folder and manifest. */
export async function productPackages(): Promise<Array<{ dir: string; manifest: Manifest }>> {
  const all = await Promise.all((await packageDirs()).map(async (dir) => ({ dir, manifest: await readManifest(dir) })));
  return all.filter(({ manifest }) => !manifest.private);
}

/**
 * The reader's service of the root README's "Write a service", one a run: inside the clone (the generated service
 * resolves @restbus/infra as a package of this workspace does), under .scratch rather than services/.
 */
let greetingsService: string | undefined;
async function greetingsFolder(): Promise<string> {
  await mkdir(join(REPO_ROOT, '.scratch'), { recursive: true });
  greetingsService ??= await mkdtemp(join(REPO_ROOT, '.scratch', 'readme-greetings-'));
  return greetingsService;
}

/**
 * What the reader does between the README's blocks: writes its handler. The generated test asks only for a status the
 * operation declares (or the stub's 501), so it passes before and after, unchanged.
 */
async function writeGreetingsHandler(folder: string): Promise<void> {
  const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  const handler = /in `services\/greetings\/src\/handlers\.ts`:\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!handler) {
    await rm(folder, { recursive: true, force: true });
    throw new Error('README.md "Write a service": no handler block');
  }
  await writeFile(join(folder, 'src/handlers.ts'), handler);
}

export const RULES: BlockRule[] = [
  // The install recipe first: the package READMEs' commands below run the programs it installs.
  {
    readme: 'README.md',
    opens: 'npm ci',
    runs: 'here',
    does: 'packs the product packages, installs them into a new folder, and serves a new project with both servers',
    skipCommands: [
      {
        command: /^npm ci$/,
        reason: 'the clone is installed before npm test runs; run again it would replace node_modules under the tests',
      },
    ],
    // A new terminal in the clone: nothing installed on the PATH yet.
    prepare: async (ctx) => ({ cwd: REPO_ROOT, env: ctx.terminalEnv }),
    check: async (run, ctx) => {
      const packs = ctx.placeholders.find(([text]) => text === '/tmp/restbus-packs')![1];
      const installed = ctx.placeholders.find(([text]) => text === '~/my-apis')![1];
      const products = await productPackages();
      const tarball = ({ name, version }: Manifest) => `${name.replace('@', '').replace('/', '-')}-${version}.tgz`;
      expect((await readdir(packs)).sort()).toEqual(products.map(({ manifest }) => tarball(manifest)).sort());
      const bins = products.flatMap(({ manifest }) => Object.keys(manifest.bin ?? {}));
      expect(await readdir(join(installed, 'node_modules', '.bin'))).toEqual(expect.arrayContaining(bins));
      expect(run.stdoutOf(/^curl .*:3007\/rest\/monitoring\/isAlive$/)).toBe('true\n');
      expect(JSON.parse(run.stdoutOf(/^curl .*:3017\/rest\/monitoring\/isAlive$/))).toEqual({
        error: 'The endpoint is either not implemented or `operationId` is ignored',
      });
    },
  },
  {
    readme: 'README.md',
    opens: 'npm install --global @restbus/tool @restbus/mock-server @restbus/gateway',
    skip: 'the packages are not on the npm registry yet (the README says so); the tarball recipe installs the same',
  },
  {
    readme: 'tool/README.md',
    opens: 'rest-tool create crm-api && cd crm-api',
    runs: 'here',
    does: 'makes a project, adds services, and its generated tests pass against its mock server',
    prepare: async (ctx) => ({ cwd: await ctx.folder('tool-first-steps'), userFiles: USER_FILES }),
    check: async (run) => {
      expectTestsPassed(run);
      expect(existsSync(join(run.cwd, 'crm-api.yml'))).toBe(true);
      expect(existsSync(join(run.cwd, 'swagger-petstore', 'config.yml'))).toBe(true);
    },
  },
  {
    readme: 'tool/README.md',
    opens: 'rest-tool import-oas petstore.yaml',
    runs: 'here',
    does: 'makes projects of an OpenAPI file, and serves one with its mock server',
    prepare: async (ctx) => ({ cwd: await ctx.folder('import-oas'), userFiles: USER_FILES }),
    check: async (run, ctx) => {
      expect(existsSync(join(run.cwd, '..', 'swagger-petstore', 'config.yml'))).toBe(true);
      const pets = await fetch(`http://127.0.0.1:${ctx.ports.get(3007)}/v1/pets`);
      expect(pets.status).toBe(200);
    },
  },
  {
    readme: 'tool/README.md',
    opens: 'docker compose run --rm tool create demo',
    runs: 'compose stack',
    does: 'makes a project with the tool container and adds a service to it',
    // The reader stands in the clone, where docker-compose.yml is; the project must not land in the repository.
    prepare: async (ctx) => {
      const clone = await ctx.folder('clone');
      await cp(join(REPO_ROOT, 'docker-compose.yml'), join(clone, 'docker-compose.yml'));
      return { cwd: clone };
    },
    check: async (run) => {
      expect(await readFile(join(run.cwd, 'config.yml'), 'utf8')).toContain('- /orders');
    },
  },
  {
    readme: 'tool/src/docs/README.md',
    opens: 'rest-tool test --update && node --test test/',
    skip:
      'notes for contributors beside the generator: tool/README.md runs the same with a mock server up; the ' +
      'second line names a staging server that does not exist',
  },
  {
    readme: 'examples/crm-api/README.md',
    opens: 'rest-tool add -t COLLECTION -p /users -u /users -n Users',
    runs: 'here',
    does: "adds a service to a copy of the example, whose generated tests pass against the example's mock server",
    prepare: async (ctx) => {
      const copy = await ctx.folder('crm-api');
      await cp(join(REPO_ROOT, 'examples/crm-api'), copy, {
        recursive: true,
        filter: (source) => !source.includes('node_modules'),
      });
      return { cwd: copy };
    },
    check: async (run) => expectTestsPassed(run),
  },
  {
    readme: 'examples/crm-api/README.md',
    opens: 'curl -c jar -b jar -X POST …',
    runs: 'compose stack',
    does: "keeps a session's writes to the example's stateful collection to that session",
    prepare: async (ctx) => ({ cwd: await ctx.folder('cookie-jar') }),
    check: async (run) => {
      expect(JSON.parse(run.stdoutOf(/^curl -b jar localhost:3008\/rest\/customers$/))).toEqual([
        { id: 1, data: 'some mock data' },
        { id: 2, data: 'some mock data' },
        { id: 3, data: 'Ada' },
      ]);
    },
  },
  {
    readme: 'examples/crm-api/README.md',
    opens: 'curl -X POST -H \'content-type: application/json\' -d \'{"filter":"open"}\' …',
    runs: 'compose stack',
    does: "answers the example's order search from its template, with the request's filter",
    prepare: async (ctx) => ({ cwd: await ctx.folder('search') }),
    check: async (run) => {
      expect(JSON.parse(run.stdoutOf(/^curl /))).toMatchObject({ filter: 'open', orders: expect.any(Array) });
    },
  },
  {
    readme: 'tool/templates/project/README.md',
    opens: 'rest-tool add -t COLLECTION -p /users -u /users -n Users',
    runs: 'here',
    does: "(every new project's README) adds a service, and the generated tests pass against the mock server",
    prepare: async (ctx) => ({ cwd: join(await createProject(ctx, 'demo'), 'demo') }),
    check: async (run) => expectTestsPassed(run),
  },
  {
    readme: 'mock-server/README.md',
    opens: 'restbus-mock [environment] [--project <dir>] …',
    runs: 'here',
    does: 'serves a project made by rest-tool with node server/server and an environment',
    skipCommands: [
      { command: /^restbus-mock \[/, reason: 'a synopsis ([…] marks what may be left out), not a command' },
    ],
    prepare: async (ctx) => ({ cwd: join(await createProject(ctx, 'served'), 'served') }),
  },
  {
    readme: 'mock-server/README.md',
    opens: 'restbus-mock record [environment] [--target <url>] …',
    skip: 'a synopsis of record mode ([…] marks what may be left out); the recipe after it runs record mode',
  },
  {
    readme: 'mock-server/README.md',
    opens: 'restbus-mock record --project my-api --target http://localhost:8080',
    runs: 'here',
    does: "records the real server's answer into the project",
    // The reader's project: one made by rest-tool, named as the README names it.
    prepare: async (ctx) => ({ cwd: await createProject(ctx, 'my-api') }),
    check: async (run) => {
      expect(JSON.parse(run.stdoutOf(/^curl /))).toEqual(REAL_API_ANSWER);
      const written = join(run.cwd, 'my-api/services/customers/customer/service.yml');
      for (let waited = 0; waited < 5000 && !existsSync(written); waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await readFile(written, 'utf8')).toContain('uriTemplate: /customers/{customerId}');
    },
  },
  {
    readme: 'person-service/README.md',
    opens: 'person-service -n nats://localhost:4222',
    runs: 'here',
    does: 'answers the person API on NATS',
    keepRunning: true,
    prepare: async (ctx) => ({ cwd: await ctx.folder('person-service') }),
  },
  {
    readme: 'systems-service/README.md',
    opens: 'npm run build && node systems-service/dist/main.js -n nats://localhost:4222',
    runs: 'here',
    does: 'builds and answers the systems API on NATS',
    keepRunning: true,
    skipCommands: [{ command: /^npx jest\b/, reason: 'npm test runs these tests already' }],
    prepare: async () => ({ cwd: REPO_ROOT }),
  },
  {
    // After the person-service block: its service answers the gateway's call.
    readme: 'gateway/README.md',
    opens: 'restbus-gateway -r person-service/person-api.yml -u -n nats://localhost:4222',
    runs: 'here',
    does: 'forwards a call over NATS to person-service, which answers the empty list of a new store',
    prepare: async () => ({ cwd: REPO_ROOT }),
    check: async (run) => {
      expect(JSON.parse(run.stdoutOf(/^curl /))).toEqual([]);
    },
  },
  {
    readme: 'gateway/README.md',
    opens: "restbus-gateway -r api.yml -w -i 'sensors.>,chat.room1' -o 'chat.room1,commands.lamp'",
    skip:
      "a synopsis on the reader's own api.yml; gateway/src/socket-io-bridge/socket-gateway-binary.integration.test.ts runs " +
      'the binary with these options, a socket.io client on each side',
  },
  {
    readme: 'gateway/README.md',
    opens: 'curl -N localhost:3007/persons/42/events',
    skip:
      'a synopsis of the API sketched above it; gateway/src/streams/streams-binary.integration.test.ts streams ' +
      'through the binary, and e2e/src/stack.e2e.test.ts streams GET /persons/events on the compose stack',
  },
  {
    readme: 'README.md',
    opens: 'docker compose up --build',
    skip:
      'the stack in the foreground, with the default project name and ports; the e2e suite brings the same file up ' +
      'under a fresh project name on free ports, and runs the readiness curl of the next block against it',
  },
  {
    readme: 'README.md',
    opens: 'docker compose up --build --wait',
    runs: 'compose stack',
    does: "answers the README's readiness curl",
    skipCommands: [composeUpOrDown],
    prepare: async () => ({ cwd: REPO_ROOT }),
    check: async (run) => {
      expect(JSON.parse(run.stdoutOf(/^gateway="\$\(docker-compose port gateway 3007\)"/))).toMatchObject({
        status: 'ready',
      });
    },
  },
  {
    readme: 'dev-issuer/README.md',
    opens: 'npm run build && node dev-issuer/dist/main.js --audience persons-api',
    skip:
      'the issuer in the foreground, then a curl from a second terminal; dev-issuer-binary.integration.test.ts runs ' +
      "the built program and asks it for such tokens, and the root README's Secure the API runs it in compose",
  },
  {
    readme: 'README.md',
    opens: 'docker compose --profile auth up --build --wait',
    runs: 'compose stack',
    does: 'gets a token from the development issuer, and the verifying gateway answers 401, 200 and 403 as it says',
    skipCommands: [composeUpOrDown],
    // alice.token is written where the reader stands: a folder of the run's, not the clone.
    prepare: async (ctx) => ({ cwd: await ctx.folder('secure-the-api') }),
    check: async (run) => {
      const noToken = readCurlAnswer(run.stdoutOf(/^curl -i localhost:3009\/persons$/));
      expect(noToken.status).toBe(401);
      expect(noToken.headers['www-authenticate']).toBe('Bearer realm="restbus"');
      expect(JSON.parse(noToken.body)).toMatchObject({ code: 'UNAUTHORIZED' });
      const read = readCurlAnswer(
        run.stdoutOf(/^curl -i -H "Authorization: Bearer \$\(cat alice\.token\)" localhost:3009\/persons$/),
      );
      expect(read.status).toBe(200);
      expect(Array.isArray(JSON.parse(read.body))).toBe(true);
      const write = readCurlAnswer(run.stdoutOf(/^curl -i -H "Authorization: .* -d .* localhost:3009\/persons$/));
      expect(write.status).toBe(403);
      expect(write.headers['www-authenticate']).toMatch(/error="insufficient_scope", scope="persons:write"/);
      expect(JSON.parse(write.body)).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    },
  },
  {
    readme: 'README.md',
    opens: 'curl -N localhost:3007/persons/events',
    skip:
      'two terminals at once, the first waiting for events until Ctrl-C; e2e/src/stack.e2e.test.ts does the same on ' +
      'the compose stack (the stream open, the writes, the events, then a resume after an id)',
  },
  {
    readme: 'README.md',
    opens: 'npx rest-tool generate-service examples/greetings-api.yml services/greetings',
    runs: 'here',
    does: 'generates a service from the example document into a folder of the clone',
    prepare: async () => ({
      cwd: REPO_ROOT,
      replace: [['services/greetings', relative(REPO_ROOT, await greetingsFolder())]],
    }),
    check: async (run) => {
      expect(run.stdoutOf(/^npx rest-tool generate-service /)).toContain(': 1 operation\n');
      for (const file of ['package.json', 'src/main.ts', 'src/handlers.ts', 'src/generated/contract.ts']) {
        expect(`${file}: ${existsSync(join(await greetingsFolder(), file))}`).toBe(`${file}: true`);
      }
    },
  },
  {
    // After the block above: the reader's handler (the README's ts block) in the service it generated.
    readme: 'README.md',
    opens: 'cd services/greetings && npm test',
    runs: 'here',
    does: "builds the generated service with the README's handler, and its test passes against a real nats-server",
    prepare: async () => {
      const folder = await greetingsFolder();
      await writeGreetingsHandler(folder);
      return { cwd: REPO_ROOT, replace: [['services/greetings', relative(REPO_ROOT, folder)]] };
    },
    check: async (run) => {
      try {
        const tally = run.stdoutOf(/^cd services\/greetings && npm test$/);
        expect(tally).toMatch(/^# fail 0$/m);
        expect(tally).toMatch(/^# pass 1$/m);
      } finally {
        await rm(await greetingsFolder(), { recursive: true, force: true });
      }
    },
  },
  {
    readme: 'README.md',
    opens: 'npm start -- -n nats://localhost:4222 &',
    skip:
      'run-recipe.ts knows no generated service as a server to wait for; generate-service.test.ts runs a generated ' +
      "service against a real nats-server, and reply-checks-binary.integration.test.ts answers a service's reply " +
      'that breaks its schema 502 REPLY_INVALID through the real gateway binary in enforce',
  },
  {
    readme: 'README.md',
    opens: 'OTEL_EXPORTER_OTLP_ENDPOINT=http://jaeger:4318 docker compose --profile tracing up --build --wait',
    skip:
      "needs Jaeger's image from a registry, and this machine reaches none (Debian has no Jaeger to build a " +
      "stand-in from); person-service's tracing.integration.test.ts runs the same call through the gateway and " +
      'person-service binaries into a real OTLP/HTTP receiver and checks the tree this block prints',
  },
  {
    readme: 'README.md',
    opens: 'npm ci && npm test',
    skip: 'what CI runs (.ci/run); run inside npm test it would run itself again',
  },
  {
    readme: 'README.md',
    opens: 'docker compose -f docker-compose.cluster.yml -p restbus-cluster up --build --wait',
    runs: 'cluster stack',
    does: "answers the README's readiness curl through the load balancer",
    skipCommands: [composeUpOrDown],
    prepare: async () => ({ cwd: REPO_ROOT }),
    check: async (run) => {
      expect(JSON.parse(run.stdoutOf(/^lb="\$\(docker-compose .* port lb 3007\)"/))).toMatchObject({ status: 'ready' });
    },
  },
  {
    readme: 'README.md',
    opens: 'for i in $(seq 14); do curl …',
    runs: 'cluster stack',
    does: 'limits one client to 10 calls a minute across both gateways behind the load balancer',
    prepare: async () => {
      await waitForFreshMinute();
      return { cwd: REPO_ROOT };
    },
    check: async (run) => {
      const answers = run
        .stdoutOf(/^for i in \$\(seq 14\)/)
        .trim()
        .split('\n')
        .map((line) => /^(\d{3}) from (gateway-\d)$/.exec(line)?.slice(1) ?? [line]);
      process.stdout.write(
        `readme, on the cluster stack: ${answers.map((answer) => answer.join(' from ')).join(', ')}\n`,
      );
      expect(answers).toHaveLength(14);
      const admitted = answers.filter(([status]) => status === '200');
      const refused = answers.filter(([status]) => status === '429');
      expect(admitted.length + refused.length).toBe(14);
      // Never past the limit; short of it by a lease a gateway held when the other ran out (a call or two), at most.
      expect(admitted.length).toBeLessThanOrEqual(10);
      expect(admitted.length).toBeGreaterThanOrEqual(8);
      // Both gateways admitted calls, and both refused: the count is one, wherever the calls went.
      expect(new Set(admitted.map(([, gateway]) => gateway)).size).toBe(2);
      expect(new Set(refused.map(([, gateway]) => gateway)).size).toBe(2);
      const fields = run.stdoutOf(/^curl -si localhost:3007\/limited\/persons/);
      expect(fields).toMatch(/^ratelimit-policy: "per-minute";q=10;w=60\r?$/m);
      expect(fields).toMatch(/^ratelimit: "per-minute";r=0;t=\d+\r?$/m);
      expect(fields).toMatch(/^retry-after: \d+\r?$/m);
      expect(fields).toContain('"code":"RATE_LIMITED"');
    },
  },
  {
    readme: 'README.md',
    opens: 'cluster="docker compose -f docker-compose.cluster.yml -p restbus-cluster"',
    skip:
      'cluster.e2e.test.ts restarts the three NATS nodes the same way (SIGUSR2, wait for the exit, start, wait ' +
      'until healthy: cluster-stack.ts) under load, and counts the failed requests',
  },
  {
    readme: 'README.md',
    opens: 'cd ~/apis && ~/restbus/bin/rest-tool-docker create demo …',
    runs: 'compose stack',
    does: 'makes a project with bin/rest-tool-docker, adds a service, serves it, and its generated tests pass',
    prepare: async () => ({ cwd: REPO_ROOT }),
    check: async (run) => {
      expect(await readFile(join(run.cwd, 'config.yml'), 'utf8')).toContain('- /orders/order');
      expect(run.stdoutOf(/^curl /)).toBe('true\n');
      expectTestsPassed(run);
    },
  },
  {
    readme: 'README.md',
    opens: 'cd ~/apis && docker compose -f ~/restbus/docker-compose.yml run --rm tool create demo …',
    runs: 'compose stack',
    does: 'makes a project with the tool container without the script, and serves it',
    // The reader runs this or the recipe above, not both: the demo the script made in ~/apis is not there for them.
    prepare: async (ctx) => {
      const apis = ctx.placeholders.find(([text]) => text === '~/apis')![1];
      await rm(join(apis, 'demo'), { recursive: true, force: true });
      return { cwd: await ctx.folder('apis') };
    },
    check: async (_run, ctx) => {
      expect(await fetchText(`http://127.0.0.1:${ctx.ports.get(3017)}/rest/monitoring/isAlive`)).toBe('200 true\n');
    },
  },
  ...['infra/runtime/README.md', 'infra/project-format/README.md'].map((readme): SkipRule => ({
    readme,
    opens: `npx jest --selectProjects ${readme.split('/')[1] === 'runtime' ? 'infra' : 'project-format'}`,
    skip: 'npm test runs these tests already',
  })),
  {
    readme: 'infra/runtime/README.md',
    opens: 'person-service -n tls://nats-1:4222,tls://nats-2:4222,tls://nats-3:4222 …',
    skip:
      "needs a TLS NATS cluster and the reader's certificate and credentials files; " +
      'create-nats-link.security.integration.test.ts starts such servers and connects with such files',
  },
  ...[
    'RESTBUS_TAG=1.4.0 docker compose build gateway person-service-1 systems-service',
    'helm repo add nats https://nats-io.github.io/k8s/helm/charts/',
    'kubectl create configmap restbus-api …',
    'kubectl apply -k deploy/kubernetes',
    'kubectl rollout restart statefulset/nats',
  ].map((opens): SkipRule => ({
    readme: 'deploy/kubernetes/README.md',
    opens,
    skip:
      'needs a Kubernetes cluster (kubectl, helm, kustomize) and an image registry; ' +
      'kubernetes-manifests.test.ts checks the manifests these commands apply',
  })),
];

/**
 * Waits, when the minute is more than half gone, for the next one: the rate-limit recipe's 14 calls must fall in one
 * window of the example's limit, which turns with the clock's minutes.
 */
async function waitForFreshMinute(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 30_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 1000));
}

/** The answer of the stand-in for the reader's real API (record mode). */
export const REAL_API_ANSWER = { id: '42', name: 'Ada Lovelace' };

export function opensBlock(rule: BlockRule, block: ShellBlock): boolean {
  const first = block.commands[0]?.command ?? '';
  return rule.opens.endsWith(' …') ? first.startsWith(rule.opens.slice(0, -2)) : first === rule.opens;
}

export function findBlock(rule: BlockRule): ShellBlock {
  const blocks = readShellBlocks(REPO_ROOT, rule.readme).filter((block) => opensBlock(rule, block));
  if (blocks.length !== 1) {
    throw new Error(`${rule.readme}: ${blocks.length} blocks open with \`${rule.opens}\`; a rule names exactly one`);
  }
  return blocks[0];
}

/** One line on what a run did: how many commands ran, which were left out and why. */
export function summarizeRun(run: RecipeRun): string {
  const reasons = new Map<string, string[]>();
  for (const { command, reason } of run.skipped) reasons.set(reason, [...(reasons.get(reason) ?? []), command]);
  const leftOut = [...reasons].map(
    ([reason, commands]) => `; left out ${commands.map((c) => `\`${c}\``).join(', ')}: ${reason}`,
  );
  return `${run.block.readme}:${run.block.line}: ran ${run.ran.length} commands${leftOut.join('')}`;
}

/** Runs a rule's block with the context's folders, ports and placeholders, then its check. */
export async function runRule(rule: RunRule, ctx: RecipeContext): Promise<RecipeRun> {
  const block = findBlock(rule);
  const prepared = (await rule.prepare?.(ctx)) ?? {};
  await mkdir(prepared.cwd ?? REPO_ROOT, { recursive: true });
  const run = await runRecipe(block, {
    cwd: prepared.cwd ?? REPO_ROOT,
    env: prepared.env ?? ctx.env,
    replace: [...(prepared.replace ?? []), ...ctx.placeholders],
    ports: ctx.ports,
    skipCommands: rule.skipCommands,
    userFiles: prepared.userFiles,
  });
  try {
    await rule.check?.(run, ctx);
  } finally {
    if (!rule.keepRunning) await run.stop();
  }
  return run;
}
