import { createHash } from 'node:crypto';
import Handlebars from 'handlebars';
import { isJsonObject, readErrorMessage, RestbusError } from '@restbus/infra';
import {
  JSON_STRING_HELPER,
  JSON_VALUE_HELPER,
  templateHelpers,
  toJsonStringContent,
  toJsonValue,
  type TemplateRandom,
} from './template-helpers';

/** How values are escaped: as JSON string content, as HTML, or not at all (plain text, CSV...). */
export type TemplateEscaping = 'json' | 'html' | 'none';

/** What a template is rendered with. */
export interface TemplateContext {
  request: {
    method: string;
    path: string;
    /** As express 5 gives them: a `*wildcard`'s value is its list of segments. */
    params: Record<string, string | string[]>;
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
handlebars.registerHelper(JSON_VALUE_HELPER, toJsonValue);
const knownHelpers = Object.fromEntries(
  [...Object.keys(templateHelpers), JSON_STRING_HELPER, JSON_VALUE_HELPER].map((name): [string, true] => [name, true]),
);

type Expression = hbs.AST.Expression;
type Statement = hbs.AST.Statement;

/** A mustache rewritten to pass its value through `helper`: `{{a.b}}` → `{{helper a.b}}`, `{{h x}}` → `{{helper (h x)}}`. */
function throughHelper(node: hbs.AST.MustacheStatement, helper: string): hbs.AST.MustacheStatement {
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
    parts: [helper],
    original: helper,
    loc: node.loc,
  };
  return { ...node, path: escaper, params: [value], hash: undefined as unknown as hbs.AST.Hash, escaped: false };
}

/** Whether the JSON text `text` leaves a string open, given whether one was open where it starts. */
function endsInString(text: string, inString: boolean): boolean {
  let open = inString;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (!open) open = char === '"';
    else if (char === '\\') i++;
    else if (char === '"') open = false;
  }
  return open;
}

/**
 * In a JSON template a request value must stay one JSON value whatever the client sent, so every `{{...}}` (and
 * `{{{...}}}`: a client's text is never JSON) is rewritten by where it stands in the JSON text around it: inside a
 * string (`"name": "{{request.body.name}}"`) its value becomes string content; elsewhere
 * (`"tags": {{request.body.tags}}`) one JSON value. The template's text is followed in document order, a block's
 * body from where the block opens. Returns whether a string is open at the end.
 */
function escapeForJson(program: hbs.AST.Program, inString: boolean): boolean {
  let open = inString;
  program.body = program.body.map((statement: Statement): Statement => {
    switch (statement.type) {
      case 'ContentStatement':
        open = endsInString((statement as hbs.AST.ContentStatement).value, open);
        return statement;
      case 'MustacheStatement':
        return throughHelper(statement as hbs.AST.MustacheStatement, open ? JSON_STRING_HELPER : JSON_VALUE_HELPER);
      case 'BlockStatement': {
        const block = statement as hbs.AST.BlockStatement;
        const afterBody = block.program ? escapeForJson(block.program, open) : open;
        const afterInverse = block.inverse ? escapeForJson(block.inverse, open) : open;
        open = block.program ? afterBody : afterInverse;
        return block;
      }
      default:
        return statement;
    }
  });
  return open;
}

const firstLine = (text: string): string => text.split('\n')[0];

/** A Handlebars error as `name:line: what`, the line from its location or its "Parse error on line N" text. */
function describeTemplateError(name: string, err: unknown): RestbusError {
  const message = readErrorMessage(err);
  const parse = /^Parse error on line (\d+):\n[^\n]*\n[^\n]*\n(.*)$/s.exec(message);
  if (parse) return new RestbusError('MOCK_UNAVAILABLE', `${name}:${parse[1]}: template syntax: ${parse[2]}`);
  const located = / - (\d+):(\d+)$/.exec(message);
  // Handlebars' Exception carries the line of a located failure.
  const lineNumber: unknown = isJsonObject(err) ? err.lineNumber : undefined;
  const line = typeof lineNumber === 'number' ? lineNumber : located ? Number(located[1]) : undefined;
  let what = located ? message.slice(0, located.index) : firstLine(message);
  const unknown = /^You specified knownHelpersOnly, but used the unknown helper (.*)$/.exec(what);
  if (unknown) what = `no helper ${unknown[1]} (there are ${Object.keys(templateHelpers).join(', ')})`;
  return new RestbusError('MOCK_UNAVAILABLE', `${name}${line ? `:${line}` : ''}: template: ${what}`);
}

/**
 * Faker, loaded on first use: it is large. Loading it takes some 70 ms of the event loop, so a template that names
 * it loads it when it is compiled (at load), not within the first request that renders it.
 */
function loadFaker(): { faker: ReturnType<TemplateRandom['faker']> } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above.
  return require('@faker-js/faker/locale/en') as { faker: ReturnType<TemplateRandom['faker']> };
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
      const { faker } = loadFaker();
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
    const ast = handlebars.parse(source);
    if (escaping === 'json') escapeForJson(ast, false);
    const options: CompileOptions = { knownHelpers, knownHelpersOnly: true, noEscape: escaping === 'none' };
    // compile() is lazy; precompile() runs the whole compiler now, so that its errors are load-time errors.
    handlebars.precompile(ast, options);
    render = handlebars.compile(ast, options);
    if (/\bfaker\b/.test(source)) loadFaker();
  } catch (err) {
    throw describeTemplateError(name, err);
  }
  return {
    render(context, seed) {
      try {
        return render(context, { data: { random: createRandom(seed) } });
      } catch (err) {
        throw new RestbusError('MOCK_UNAVAILABLE', `${name}: the template failed: ${firstLine(readErrorMessage(err))}`);
      }
    },
  };
}
