// The README's compose v1 readiness checks, run under bash with a stand-in `docker-compose` earlier on the PATH: a
// test of the shell text (does it fail at once when compose finds no container, does it wait for a late gateway),
// not of Docker, which the e2e stacks test. No clock is read (issue 45): "fails at once" is that curl, whose retries
// are the wait, never runs.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './compose-stack';
import { readShellBlocks } from './readme-blocks';
import { RULES, findBlock, isRunRule, type RecipeContext } from './readme-recipes';
import type { RecipeRun } from './run-recipe';

const READINESS = /\bport (gateway|lb) 3007\b/;
const checks = readShellBlocks(REPO_ROOT, 'README.md')
  .flatMap((block) => block.commands)
  .filter((command) => READINESS.test(command.command));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

let stubs: string;
beforeEach(async () => {
  stubs = await mkdtemp(join(tmpdir(), 'restbus-readiness-'));
});
afterEach(() => rm(stubs, { recursive: true, force: true }));

/** A `curl` that only notes, in the file `curl-ran`, that it ran (and fails): a check that fails at once runs none. */
async function standInCurl(): Promise<() => Promise<string>> {
  const ran = join(stubs, 'curl-ran');
  await writeFile(join(stubs, 'curl'), `#!/bin/sh\necho "curl $*" >> '${ran}'\nexit 7\n`);
  await chmod(join(stubs, 'curl'), 0o755);
  return () => readFile(ran, 'utf8').catch(() => '');
}

/** A `docker-compose` (and `docker`) that runs `script` whatever it is asked. */
async function standInCompose(script: string): Promise<void> {
  for (const name of ['docker-compose', 'docker']) {
    await writeFile(join(stubs, name), `#!/bin/sh\n${script}\n`);
    await chmod(join(stubs, name), 0o755);
  }
}

/**
 * Runs a README command in bash with the stand-ins first on the PATH; killed after `limitMs` (a timer, far beyond
 * what a check takes, so that a loaded machine never trips it).
 */
function runCommand(command: string, limitMs = 120_000): Promise<Ran> {
  const child = spawn('bash', ['-c', command], {
    cwd: stubs,
    env: { ...process.env, PATH: `${stubs}:${process.env.PATH ?? ''}` },
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), limitMs);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe("the README's compose v1 readiness checks", () => {
  it('are there, one for the single-node stack and one for the cluster', () => {
    expect(checks.map((check) => READINESS.exec(check.command)?.[1])).toEqual(['gateway', 'lb']);
  });

  describe.each(checks.map((check) => [`README.md:${check.line}`, check.command]))('%s', (_where, command) => {
    const service = READINESS.exec(command)?.[1];

    it('fails at once, without waiting on curl, saying the container is not running, when compose finds no container', async () => {
      await standInCompose(`echo "ERROR: No container found for ${service}_1" >&2; exit 1`);
      const curlRan = await standInCurl();
      const ran = await runCommand(command);
      expect(ran.code).not.toBe(0);
      expect(await curlRan()).toBe('');
      expect(ran.stderr).toContain(`the ${service} container is not running`);
    });

    it('fails at once, without waiting on curl, saying the container is not running, when the port lookup prints nothing', async () => {
      await standInCompose('exit 0');
      const curlRan = await standInCurl();
      const ran = await runCommand(command);
      expect(ran.code).not.toBe(0);
      expect(await curlRan()).toBe('');
      expect(ran.stderr).toContain(`the ${service} container is not running`);
    });

    it('waits for a gateway that is not ready yet, and prints its ready answer', async () => {
      let asked = 0;
      const server = createServer((request, response) => {
        asked++;
        if (request.url !== '/-/ready' || asked < 3) response.writeHead(503).end('{"status":"starting"}');
        else response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}');
      });
      try {
        const port = await listen(server);
        await standInCompose(`echo 127.0.0.1:${port}`);
        const ran = await runCommand(command);
        expect(ran).toMatchObject({ code: 0, stdout: '{"status":"ready"}' });
        expect(asked).toBe(3);
      } finally {
        server.close();
      }
    });

    it('waits through empty replies of a gateway still starting, saying only that it waits (issue 47)', async () => {
      let asked = 0;
      const server = createServer((request, response) => {
        // A container whose port is published before its server listens: the connection closes with no answer.
        if (++asked < 3) request.socket.destroy();
        else response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}');
      });
      try {
        const port = await listen(server);
        await standInCompose(`echo 127.0.0.1:${port}`);
        const ran = await runCommand(command);
        expect(ran).toMatchObject({ code: 0, stdout: '{"status":"ready"}' });
        expect(ran.stderr.trim().split('\n')).toEqual([
          `waiting up to ${service === 'lb' ? 120 : 90} s for 127.0.0.1:${port}/-/ready`,
        ]);
      } finally {
        server.close();
      }
    });

    it('fails saying where to look when the gateway never gets ready', async () => {
      await standInCompose('echo 127.0.0.1:9');
      const curlRan = await standInCurl();
      const ran = await runCommand(command);
      expect(ran.code).not.toBe(0);
      expect(await curlRan()).toContain('/-/ready');
      expect(ran.stderr).toMatch(/did not get ready in \d+ s: see docker-compose .*logs/);
    });
  });
});

describe('the e2e rules of the blocks with a readiness check', () => {
  it.each([
    ['docker compose up --build --wait', 'gateway'],
    ['docker compose -f docker-compose.cluster.yml -p restbus-cluster up --build --wait', 'lb'],
  ])('find the readiness check of the block opening `%s` to read its answer', async (opens, service) => {
    const rule = RULES.filter(isRunRule).find((one) => one.readme === 'README.md' && one.opens === opens)!;
    const block = findBlock(rule);
    const read: string[] = [];
    const run = {
      stdoutOf: (written: RegExp) => {
        const command = block.commands.find((one) => written.test(one.command));
        if (!command) throw new Error(`no command of the block matches ${written}`);
        read.push(command.command);
        return '{"status":"ready"}';
      },
    } as RecipeRun;
    await rule.check!(run, {} as RecipeContext);
    expect(read).toEqual([expect.stringMatching(new RegExp(`\\bport ${service} 3007\\b`))]);
  });
});
