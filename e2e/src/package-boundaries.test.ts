import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './compose-stack';

interface Manifest {
  name: string;
  workspaces?: string[];
  files?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const readManifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as Manifest;

const ROOT = readManifest('.');
const BUILTINS = new Set(builtinModules);

/** Every .ts file under a package's src/, but generated fixtures and dependencies. */
function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'fixtures', 'dist'].includes(entry.name) ? [] : listSources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Import {
  specifier: string;
  /** `import type`: erased from the built code, so a devDependency (for the types) is enough. */
  typeOnly: boolean;
}

/**
 * The modules a file imports, re-exports, requires or loads with `import('…')`, read from its syntax tree: code the
 * tool writes inside template strings is text, not an import.
 */
function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const typeOnly = ts.isImportDeclaration(node) ? (node.importClause?.isTypeOnly ?? false) : node.isTypeOnly;
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Test side: tests, their helpers, benchmarks and the `testing` exports, which no user of the package runs. */
const isTestSide = (path: string): boolean =>
  /\.test\.ts$|\/__tests__\/|\/bench\/|\/testing\//.test(path) || path.startsWith('e2e/');

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

function findBoundaryBreaks(): { reachesOut: string[]; undeclared: string[] } {
  const reachesOut: string[] = [];
  const undeclared: string[] = [];
  for (const dir of ROOT.workspaces ?? []) {
    const manifest = readManifest(dir);
    const runtime = new Set(
      Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies }),
    );
    const forTests = new Set([...runtime, ...Object.keys({ ...manifest.devDependencies, ...ROOT.devDependencies })]);
    for (const file of listSources(join(REPO_ROOT, dir, 'src'))) {
      const path = relative(REPO_ROOT, file);
      for (const { specifier, typeOnly } of importsOf(file)) {
        if (specifier.startsWith('.')) {
          const target = relative(join(REPO_ROOT, dir), resolve(dirname(file), specifier));
          if (target.startsWith('..')) reachesOut.push(`${path} imports ${specifier}`);
          continue;
        }
        if (specifier.startsWith('node:') || BUILTINS.has(packageOf(specifier))) continue;
        const name = packageOf(specifier);
        if (name === manifest.name) continue;
        const devSide = isTestSide(path) || typeOnly;
        if (!(devSide ? forTests : runtime).has(name)) {
          const where = devSide ? 'its dependencies, devDependencies or the root devDependencies' : 'its dependencies';
          undeclared.push(`${path} imports ${name}, which ${manifest.name} does not list in ${where}`);
        }
      }
    }
  }
  return { reachesOut, undeclared };
}

describe('the workspace packages', () => {
  const { reachesOut, undeclared } = findBoundaryBreaks();

  // Another package's source by relative path works in the repository and nowhere else: a package is reached by its
  // name and its exports (a `testing` export where tests need helpers).
  it('import no file of another package by a relative path', () => {
    expect(reachesOut).toEqual([]);
  });

  // A runtime import missing from the package's dependencies works in the workspace (hoisted) and breaks an install.
  it('declare every package their code imports: what runs in dependencies, tests and types also in devDependencies', () => {
    expect(undeclared).toEqual([]);
  });
});
