import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const SOURCE = join(__dirname, '..');

/** The gateway's own source: every .ts file under src/ but the tests, their helpers and the benchmarks. */
function listSourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__tests__' || entry.name === 'bench' ? [] : listSourceFiles(path);
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

describe("the gateway's source", () => {
  it('has at most 10 casts per 1,000 lines', () => {
    const counted = listSourceFiles(SOURCE).map((path) => {
      const text = readFileSync(path, 'utf8');
      return {
        file: relative(SOURCE, path),
        lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
        casts: countCasts(text),
      };
    });
    const lines = counted.reduce((sum, { lines }) => sum + lines, 0);
    const casts = counted.reduce((sum, { casts }) => sum + casts, 0);
    const worst = counted
      .filter((file) => file.casts > 0)
      .sort((a, b) => b.casts - a.casts)
      .map(({ file, casts }) => `${file}: ${casts}`);
    const perThousand = (casts / lines) * 1000;
    // Past the ratio, the failure lists the totals and the files with casts, most first: where to look.
    const summary = `${casts} casts in ${lines} lines: ${perThousand.toFixed(1)} per 1,000`;
    expect(perThousand <= 10 ? [] : [summary, ...worst]).toEqual([]);
  });
});
