import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from './compose-stack';

const WORKSPACES = ['infra/runtime', 'infra/project-format', 'infra/openapi', 'gateway', 'mock-server', 'tool'];

/** The folder of the `ajv` a module in `from` loads. */
const ajvFolder = (from: string): string =>
  dirname(require.resolve('ajv/package.json', { paths: [join(REPO_ROOT, from)] }));

describe('the installed dependencies', () => {
  // The root's devDependency on ajv 8 takes the root's node_modules/ajv (eslint's ajv 6 goes under eslint): without
  // it npm put a copy of ajv 8 under infra/, gateway/ and ajv-formats/, and a gateway start loaded all three.
  it('give every package and ajv-formats one and the same ajv 8', () => {
    const folders = new Set([...WORKSPACES, 'node_modules/ajv-formats'].map(ajvFolder));
    expect([...folders]).toEqual([join(REPO_ROOT, 'node_modules', 'ajv')]);
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules/ajv/package.json'), 'utf8')) as {
      version: string;
    };
    expect(version).toMatch(/^8\./);
  });
});
