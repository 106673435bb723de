import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, runTool } from './tool-helpers';

/** `node <project>/server/server …` from `cwd`, with only the environment given. */
function runScript(
  project: string,
  cwd: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(project, 'server', 'server'), ...args], { cwd, env });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

describe("a project's server/server script", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let project: string;
  const bin = (): string => join(temp.dir, 'bin');
  beforeAll(async () => {
    temp = await makeTempDir();
    await runTool(temp.dir, ['create', 'p']);
    project = join(temp.dir, 'p');
    await mkdir(bin());
  });
  afterAll(() => temp.remove());

  it('runs the restbus-mock that RESTBUS_MOCK names, for this project, passing the environment and options', async () => {
    const fake = join(temp.dir, 'fake-mock.js');
    await writeFile(fake, 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\nprocess.exitCode = 3;\n');
    const result = await runScript(project, project, ['devProxy', '--check'], {
      PATH: '/usr/bin:/bin',
      RESTBUS_MOCK: fake,
    });
    expect(result).toEqual({ code: 3, out: JSON.stringify(['--project', project, 'devProxy', '--check']) });
  });

  it('finds restbus-mock on the PATH from any folder, and passes on its exit code', async () => {
    await writeFile(join(bin(), 'restbus-mock'), '#!/bin/sh\necho "$@"\nexit 4\n');
    await chmod(join(bin(), 'restbus-mock'), 0o755);
    const result = await runScript(project, temp.dir, ['production'], { PATH: `${bin()}:/usr/bin:/bin` });
    expect(result).toEqual({ code: 4, out: `--project ${project} production\n` });
  });

  it('names the package and the command that installs it when no restbus-mock is found anywhere, and exits 1', async () => {
    // A copy whose creating rest-tool has gone away, in a folder with no node_modules above it.
    const script = await readFile(join(project, 'server', 'server'), 'utf8');
    const orphan = join(temp.dir, 'orphan');
    await mkdir(join(orphan, 'server'), { recursive: true });
    await writeFile(
      join(orphan, 'server', 'server'),
      script.replace(/const createdWith = '[^']*';/, "const createdWith = '/nonexistent/restbus-mock.js';"),
    );
    const result = await runScript(orphan, orphan, [], { PATH: '/usr/bin:/bin' });
    expect(result.code).toBe(1);
    expect(result.out).toContain('package @restbus/mock-server) was not found');
    expect(result.out).toContain('npm install --save-dev @restbus/mock-server');
    expect(result.out).not.toMatch(/\n\s+at /); // no stack trace
  });
});
