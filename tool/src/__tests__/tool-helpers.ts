import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runCli } from '../cli/run-cli';
import type { Generators } from '../cli/program-deps';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

const noGenerators: Generators = {
  generateDocs: () => Promise.reject(new Error('docs are not part of this test')),
  generateTests: () => Promise.reject(new Error('tests are not part of this test')),
};

/** rest-tool in this process, in `cwd`: fast, with its exit code and output. `env` is the whole environment it sees. */
export async function runTool(
  cwd: string,
  args: string[],
  generators: Generators = noGenerators,
  env: Record<string, string> = {},
): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    ...generators,
    version: '0.1.0',
    cwd,
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** rest-tool's bin, which runs the built program (jest's global setup builds every package first). */
const TOOL_BIN = join(__dirname, '..', '..', 'bin', 'rest-tool.js');
/** The mock server's built program (jest's global setup builds every package first). */
export const MOCK_MAIN = join(__dirname, '..', '..', '..', 'mock-server', 'dist', 'main.js');

/** A Node program as a real process, in `cwd`, with its exit code and output. */
export function runNode(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * rest-tool as a real process, through the bin users run: for exit codes and stderr as users see them. The built
 * program, not the sources through a transpiling hook: that cost 7 s of CPU per start against 1.6 s (issue 45).
 */
export const runToolProcess = (cwd: string, args: string[]): Promise<RunResult> => runNode(cwd, [TOOL_BIN, ...args]);

/** `restbus-mock --check` on a project, as a real process. */
export const runMockCheck = (projectDir: string, args: string[] = []): Promise<RunResult> =>
  runNode(projectDir, [MOCK_MAIN, '--project', projectDir, '--check', ...args]);

/** A fresh temporary folder; `remove()` deletes it. */
export async function makeTempDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'rest-tool-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Every file below `dir` (hidden ones too) with its content: compare two of these to prove nothing changed. */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isSymbolicLink()) files[relative(dir, path)] = `-> ${await readlink(path)}`;
      else if (entry.isDirectory()) {
        files[`${relative(dir, path)}/`] = '';
        await walk(path);
      } else files[relative(dir, path)] = await readFile(path, 'utf8');
    }
  };
  if (await stat(dir).catch(() => undefined)) await walk(dir);
  return files;
}
