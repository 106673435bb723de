import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runNode } from './tool-helpers';

const TEST_FILE = /\.(c|m)?js$/;

/** The files `node --test <dir>` runs in a test folder: every JavaScript file below it. */
async function listTestFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && TEST_FILE.test(entry.name)) files.push(join(entry.parentPath, entry.name));
  }
  return files.sort();
}

/**
 * Generated test files (or every file of a test folder) run by Node's test runner in one process, the files imported
 * one after the other: their tests, failures and TAP summary (`# pass 7`) are those of `node --test test/`, which
 * starts a process per file at 0.5 CPU-s each (issue 45). The README recipes (e2e) run `node --test test/` itself, as
 * users do. `env` is added to this process's environment; a value of undefined removes the variable.
 */
export async function runGeneratedTests(
  cwd: string,
  filesOrFolder: string[] | string,
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; output: string }> {
  const files =
    typeof filesOrFolder === 'string'
      ? await listTestFiles(resolve(cwd, filesOrFolder))
      : filesOrFolder.map((file) => resolve(cwd, file));
  const script = files.map((file) => `await import(${JSON.stringify(pathToFileURL(file).href)});`).join('\n');
  const environment: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete environment[name];
    else environment[name] = value;
  }
  const { code, stdout, stderr } = await runNode(
    cwd,
    ['--input-type=module', '--test-reporter=tap', '-e', script],
    environment,
  );
  return { code, output: stdout + stderr };
}
