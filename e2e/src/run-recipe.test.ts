import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ShellBlock } from './readme-blocks';
import { runRecipe, type RecipeRun } from './run-recipe';

// A project's `server/server` as a reader's folder has one: it listens on --port, answers with its port, logs
// restbus's "serving" line, and says so as restbus-mock does when another program holds the port. With a file
// `refuse-once` beside it, its first start says the port is taken without trying (a port taken between pick and bind).
const SERVER_SCRIPT = `
const { existsSync, rmSync } = require('node:fs');
const { createServer } = require('node:http');
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const taken = () => {
  console.error('restbus-mock: port ' + port + ' is already in use by another program');
  process.exit(1);
};
if (existsSync('refuse-once')) { rmSync('refuse-once'); taken(); }
const server = createServer((request, response) => response.end(String(port)));
server.once('error', taken);
server.listen(port, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'serving', port })));
`;

const block = (...commands: string[]): ShellBlock => ({
  readme: 'README.md',
  line: 1,
  commands: commands.map((command, index) => ({ command, comment: '', line: index + 2 })),
});

let folder: string;
let holder: Server;
let heldPort: number;
const runs: RecipeRun[] = [];

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'restbus-run-recipe-'));
  await mkdir(join(folder, 'server'));
  await writeFile(join(folder, 'server', 'server.js'), SERVER_SCRIPT);
  await writeFile(join(folder, 'config.yml'), 'servicePort: 3007\n');
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  heldPort = (holder.address() as { port: number }).port;
});

afterEach(async () => {
  await Promise.all(runs.splice(0).map((run) => run.stop()));
  await new Promise((resolve) => holder.close(resolve));
  await rm(folder, { recursive: true, force: true });
});

const options = (ports: Map<number, number>) => ({ cwd: folder, env: process.env, replace: [], ports });
const fetchCommand = 'node -e "fetch(\'http://localhost:3007/\').then((r) => r.text()).then(console.log)"';

describe('runRecipe', () => {
  it('starts a server on a port picked as it starts, when another program took the one the suite picked before', async () => {
    const ports = new Map([[3007, heldPort]]);
    const run = await runRecipe(block('node server/server', fetchCommand), options(ports));
    runs.push(run);

    const ours = ports.get(3007)!;
    expect(ours).not.toBe(heldPort);
    expect(run.ran.map((command) => command.ran)).toEqual([
      `node server/server --port ${ours}`,
      fetchCommand.replace('localhost:3007', `localhost:${ours}`),
    ]);
    // The later command called the server the block started.
    expect(run.ran[1].stdout.trim()).toBe(String(ours));
  });

  it('starts a server again on a fresh port when its port is taken between the pick and the bind', async () => {
    await writeFile(join(folder, 'refuse-once'), '');
    const ports = new Map([[3007, heldPort]]);
    const run = await runRecipe(block('node server/server --port 3007', fetchCommand), options(ports));
    runs.push(run);

    expect(existsSync(join(folder, 'refuse-once'))).toBe(false);
    expect(run.ran[1].stdout.trim()).toBe(String(ports.get(3007)));
  });

  it('gives up with the server output when it fails for another reason than a taken port', async () => {
    await writeFile(join(folder, 'server', 'server.js'), 'console.error("no such project"); process.exit(2);');
    const ports = new Map([[3007, heldPort]]);

    await expect(runRecipe(block('node server/server'), options(ports))).rejects.toThrow(
      /README\.md:2 `node server\/server`, run as `node server\/server --port \d+` in .*, exited \(2\) before it logged "serving":\s+no such project/,
    );
  });

  it('leaves the ports a server only calls as they were', async () => {
    const calledPort = heldPort;
    const ports = new Map([
      [3007, heldPort],
      [4222, calledPort],
    ]);
    const run = await runRecipe(block('node server/server -u nats://localhost:4222'), options(ports));
    runs.push(run);

    expect(ports.get(4222)).toBe(calledPort);
    expect(run.ran[0].ran).toBe(`node server/server -u nats://localhost:${calledPort} --port ${ports.get(3007)}`);
  });
});
