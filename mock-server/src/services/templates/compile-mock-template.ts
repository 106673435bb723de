import { createHash } from 'node:crypto';
import Handlebars from 'handlebars';
import { RestbusError } from '@restbus/infra';
import { JSON_STRING_HELPER, templateHelpers, toJsonStringContent, type TemplateRandom } from './template-helpers';

/** How values are escaped: as JSON string content, as HTML, or not at all (plain text, CSV...). */
export type TemplateEscaping = 'json' | 'html' | 'none';

/** What a template is rendered with. */
export interface TemplateContext {
  request: {
    method: string;
    path: string;
    params: Record<string, string>;
    query: unknown;
    headers: Record<string, unknown>;
    cookies: Record<string, unknown>;
    body: unknown;
  };
}

export interface MockTemplate {
  /** Renders with the request; random data is seeded by `seed`. Throws MOCK_UNAVAILABLE when a helper fails. */
  render(context: TemplateContext, seed: string): string;
}

/** The file name's ending that makes a mock file a template (`customer.json.hbs`). */
export const TEMPLATE_EXTENSION = '.hbs';

const handlebars = Handlebars.create();
handlebars.registerHelper(templateHelpers);
handlebars.registerHelper(JSON_STRING_HELPER, toJsonStringContent);
const knownHelpers = Object.fromEntries(
  [...Object.keys(templateHelpers), JSON_STRING_HELPER].map((name): [string, true] => [name, true]),
);

type Node = hbs.AST.MustacheStatement;
type Expression = hbs.AST.Expression;

/**
 * In a JSON template `"name": "{{request.body.name}}"` must stay valid JSON whatever the client sent, so every
 * escaped `{{...}}` is rewritten to pass its value through the JSON string escaper instead of the HTML one.
 * `{{{...}}}` stays raw, as in any Handlebars template.
 */
class JsonEscaping extends Handlebars.Visitor {
  constructor() {
    super();
    // Handlebars' visitor replaces a node by what its method returns only when mutating (not in its typings).
    (this as unknown as { mutating: boolean }).mutating = true;
  }

  override MustacheStatement(node: Node): Node {
    if (!node.escaped) return node;
    const path = node.path as hbs.AST.PathExpression;
    const callsHelper =
      node.params.length > 0 || (node.hash?.pairs.length ?? 0) > 0 || Object.hasOwn(knownHelpers, path.original);
    const value: Expression = callsHelper
      ? ({ type: 'SubExpression', path, params: node.params, hash: node.hash, loc: node.loc } as hbs.AST.SubExpression)
      : node.path;
    const escaper: hbs.AST.PathExpression = {
      type: 'PathExpression',
      data: false,
      depth: 0,
      parts: [JSON_STRING_HELPER],
      original: JSON_STRING_HELPER,
      loc: node.loc,
    };
    return { ...node, path: escaper, params: [value], hash: undefined as unknown as hbs.AST.Hash, escaped: false };
  }
}

const firstLine = (text: string): string => text.split('\n')[0];

/** A Handlebars error as `name:line: what`, the line from its location or its "Parse error on line N" text. */
function describeTemplateError(name: string, err: unknown): RestbusError {
  const failure = err as { message?: string; lineNumber?: number };
  const message = failure.message ?? String(err);
  const parse = /^Parse error on line (\d+):\n[^\n]*\n[^\n]*\n(.*)$/s.exec(message);
  if (parse) return new RestbusError('MOCK_UNAVAILABLE', `${name}:${parse[1]}: template syntax: ${parse[2]}`);
  const located = / - (\d+):(\d+)$/.exec(message);
  const line = failure.lineNumber ?? (located ? Number(located[1]) : undefined);
  let what = located ? message.slice(0, located.index) : firstLine(message);
  const unknown = /^You specified knownHelpersOnly, but used the unknown helper (.*)$/.exec(what);
  if (unknown) what = `no helper ${unknown[1]} (there are ${Object.keys(templateHelpers).join(', ')})`;
  return new RestbusError('MOCK_UNAVAILABLE', `${name}${line ? `:${line}` : ''}: template: ${what}`);
}

/** A generator seeded from a string (mulberry32 over the string's hash): cheap, and the same for the same seed. */
function createRandom(seed: string): TemplateRandom {
  let state = createHash('sha1').update(seed).digest().readUInt32LE(0);
  const next = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let seeded = false;
  return {
    next,
    faker() {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: it is large.
      const { faker } = require('@faker-js/faker/locale/en') as { faker: ReturnType<TemplateRandom['faker']> };
      // One instance for the process: rendering is synchronous, so seeding it for this rendering is safe.
      if (!seeded) {
        faker.seed(Math.floor(next() * 2 ** 31));
        seeded = true;
      }
      return faker;
    },
  };
}

/**
 * Compiles a mock template, every problem found now (syntax, an unknown helper) rather than at request time, as
 * `file:line: what` in a MOCK_UNAVAILABLE. Values are escaped for the file's type (`escaping`).
 */
export function compileMockTemplate(source: string, name: string, escaping: TemplateEscaping): MockTemplate {
  let render: HandlebarsTemplateDelegate;
  try {
    let ast = handlebars.parse(source);
    if (escaping === 'json') ast = new JsonEscaping().accept(ast) as unknown as hbs.AST.Program;
    const options: CompileOptions = { knownHelpers, knownHelpersOnly: true, noEscape: escaping === 'none' };
    // compile() is lazy; precompile() runs the whole compiler now, so that its errors are load-time errors.
    handlebars.precompile(ast, options);
    render = handlebars.compile(ast, options);
  } catch (err) {
    throw describeTemplateError(name, err);
  }
  return {
    render(context, seed) {
      try {
        return render(context, { data: { random: createRandom(seed) } });
      } catch (err) {
        throw new RestbusError(
          'MOCK_UNAVAILABLE',
          `${name}: the template failed: ${firstLine((err as Error).message)}`,
        );
      }
    },
  };
}
