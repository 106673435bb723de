import ts from 'typescript';

/** A deadline a test file gives a test, hook or the whole file, shorter than the run's own. */
export interface ShortDeadline {
  file: string;
  line: number;
  /** What it is given to: `it`, `beforeAll`, `jest.setTimeout`… */
  to: string;
  ms: number;
}

const TAKES_A_DEADLINE = new Set(['it', 'test', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach']);

/** `it`, `it.each(…)`, `it.only`, `test.concurrent`… as the name of what takes the deadline, else undefined. */
function nameOfTaker(callee: ts.Expression): string | undefined {
  if (ts.isIdentifier(callee)) return TAKES_A_DEADLINE.has(callee.text) ? callee.text : undefined;
  if (ts.isCallExpression(callee)) return nameOfTaker(callee.expression); // it.each(table)(name, fn, ms)
  if (ts.isPropertyAccessExpression(callee)) return nameOfTaker(callee.expression);
  return undefined;
}

/** The number a literal such as `60_000` or `2 * 60_000` stands for, when it is one. */
function literalMs(node: ts.Expression): number | undefined {
  if (ts.isNumericLiteral(node)) return Number(node.text.replace(/_/g, ''));
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.AsteriskToken) {
    const [left, right] = [literalMs(node.left), literalMs(node.right)];
    return left === undefined || right === undefined ? undefined : left * right;
  }
  if (ts.isParenthesizedExpression(node)) return literalMs(node.expression);
  return undefined;
}

/**
 * Every deadline below `minimumMs` that a test file sets: the last argument of a test or hook after its function, or
 * `jest.setTimeout`. Such a deadline is a measure in disguise: a test that passes in 20 s on a quiet machine and has
 * 30 s fails on a busy one while the code is right (issue 45). The run's deadline is for hangs only.
 */
export function findShortDeadlinesIn(file: string, text: string, minimumMs: number): ShortDeadline[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: ShortDeadline[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const args = node.arguments;
      const last = args[args.length - 1];
      const callee = node.expression;
      const isSetTimeout =
        ts.isPropertyAccessExpression(callee) &&
        ts.isIdentifier(callee.expression) &&
        callee.expression.text === 'jest' &&
        callee.name.text === 'setTimeout';
      const taker = isSetTimeout ? 'jest.setTimeout' : nameOfTaker(callee);
      const afterFunction =
        isSetTimeout ||
        (args.length >= 2 &&
          (ts.isArrowFunction(args[args.length - 2]) || ts.isFunctionExpression(args[args.length - 2])));
      const ms = last && taker && afterFunction ? literalMs(last) : undefined;
      if (taker && ms !== undefined && ms < minimumMs) {
        const line = source.getLineAndCharacterOfPosition(last.getStart(source)).line + 1;
        found.push({ file, line, to: taker, ms });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
