import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A project's files by project-relative path. */
export type Files = Record<string, string | Buffer>;

/** Writes the files into `dir` (default: a new temporary folder) and returns the folder. */
export async function writeProject(files: Files, dir?: string): Promise<string> {
  const root = dir ?? (await mkdtemp(join(tmpdir(), 'restbus-project-')));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, name)), { recursive: true });
    await writeFile(join(root, name), content);
  }
  return root;
}
