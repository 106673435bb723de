import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './compose-stack';

/** The ratio every package keeps to: a value is checked at the edge once (ajv, a guard), then its type is trusted. */
const CASTS_PER_THOUSAND = 6;

/**
 * Packages not there yet, at most this many per 1,000 lines: the ratchet only turns down. Empty since systems-service's
 * last cast went (its `postSystems(data, cb)` reads the checked body with readCheckedBody); a package that must go
 * above the bound for a while is named here with its ceiling, and leaves once under it.
 */
const NOT_YET: Record<string, number> = {};

/** A package's own source: every .ts file under src/ but tests, their helpers, benchmarks and generated code. */
function listSourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return ['__tests__', 'bench', 'testing', 'generated'].includes(entry.name) ? [] : listSourceFiles(path);
    }
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** `x as T` and `<T>x`, not `as const` (a literal's type, no claim about a value); `import … as` is no expression. */
function countCasts(text: string): number {
  const file = ts.createSourceFile('source.ts', text, ts.ScriptTarget.Latest, false);
  let casts = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const isConst = ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(file) === 'const';
      if (!isConst) casts += 1;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return casts;
}

function measurePackage(dir: string): { perThousand: number; summary: string; worst: string[] } {
  const counted = listSourceFiles(join(REPO_ROOT, dir, 'src')).map((path) => {
    const text = readFileSync(path, 'utf8');
    return {
      file: relative(REPO_ROOT, path),
      lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
      casts: countCasts(text),
    };
  });
  const lines = counted.reduce((sum, file) => sum + file.lines, 0);
  const casts = counted.reduce((sum, file) => sum + file.casts, 0);
  const perThousand = lines === 0 ? 0 : (casts / lines) * 1000;
  const worst = counted
    .filter((file) => file.casts > 0)
    .sort((a, b) => b.casts - a.casts)
    .slice(0, 10)
    .map(({ file, casts: count }) => `${file}: ${count}`);
  return {
    perThousand,
    summary: `${dir}: ${casts} casts in ${lines} lines, ${perThousand.toFixed(1)} per 1,000`,
    worst,
  };
}

/** The most lines a function has of its own (its nested functions not counted): past it, it does more than one thing. */
const FUNCTION_LINES = 80;

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessor(node) ||
  ts.isSetAccessor(node);

/** The functions of a file with more than FUNCTION_LINES lines of their own, as `file:line name (lines)`. */
function findLongFunctions(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const lineOf = (position: number): number => file.getLineAndCharacterOfPosition(position).line;
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const first = lineOf(node.body.getStart(file));
      const last = lineOf(node.body.getEnd());
      const nested = new Set<number>();
      const skipNested = (inner: ts.Node): void => {
        if (isFunction(inner) && inner.body) {
          for (let line = lineOf(inner.body.getStart(file)) + 1; line < lineOf(inner.body.getEnd()); line += 1) {
            nested.add(line);
          }
          return;
        }
        ts.forEachChild(inner, skipNested);
      };
      ts.forEachChild(node.body, skipNested);
      const own = last - first + 1 - nested.size;
      if (own > FUNCTION_LINES) {
        const name =
          node.name?.getText(file) ??
          (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(file) : '(anonymous)');
        found.push(`${relative(REPO_ROOT, path)}:${lineOf(node.getStart(file)) + 1} ${name} (${own} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const workspaces = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] })
  .workspaces;

describe("each package's own source", () => {
  it.each(workspaces.filter((dir) => dir !== 'e2e'))(
    '%s has at most 6 casts per 1,000 lines, or no more than its ceiling on the way there',
    (dir) => {
      const { perThousand, summary, worst } = measurePackage(dir);
      const ceiling = NOT_YET[dir] ?? CASTS_PER_THOUSAND;
      // Past the ceiling, the failure names the totals and the files with the most casts: where to look.
      expect(perThousand <= ceiling ? [] : [`${summary} (at most ${ceiling})`, ...worst]).toEqual([]);
    },
  );

  it('keeps no ceiling above the ratio once its package is under it', () => {
    const loose = Object.keys(NOT_YET).filter((dir) => measurePackage(dir).perThousand <= CASTS_PER_THOUSAND);
    // Such a package is done: it leaves NOT_YET, so that it cannot slide back up.
    expect(loose).toEqual([]);
  });
});

describe("each package's functions", () => {
  it.each(workspaces.filter((dir) => dir !== 'e2e'))('%s has none with more than 80 lines of its own', (dir) => {
    expect(listSourceFiles(join(REPO_ROOT, dir, 'src')).flatMap(findLongFunctions)).toEqual([]);
  });
});
