import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

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
export function runGeneratedTests(
  cwd: string,
  filesOrFolder: string[] | string,
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; output: string }> {
  return new Promise((done, reject) => {
    const found =
      typeof filesOrFolder === 'string'
        ? listTestFiles(resolve(cwd, filesOrFolder))
        : Promise.resolve(filesOrFolder.map((file) => resolve(cwd, file)));
    found.then((files) => {
      const script = files.map((file) => `await import(${JSON.stringify(pathToFileURL(file).href)});`).join('\n');
      const environment: NodeJS.ProcessEnv = { ...process.env };
      for (const [name, value] of Object.entries(env)) {
        if (value === undefined) delete environment[name];
        else environment[name] = value;
      }
      const child = spawn(process.execPath, ['--input-type=module', '--test-reporter=tap', '-e', script], {
        cwd,
        env: environment,
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => done({ code: code ?? -1, output }));
    }, reject);
  });
}
