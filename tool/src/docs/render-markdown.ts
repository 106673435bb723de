import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runInThisContext } from 'node:vm';
import type { Marked, MarkedExtension, Tokens } from 'marked' with { 'resolution-mode': 'import' };

// marked 16 is ESM-only and this package is CommonJS on Node 20, where require() of ESM is missing before 20.19 (and
// jest's CommonJS runtime cannot import() at all). marked also ships a UMD build of the same code, but its package
// says "type": "module", so Node would load that file as ESM too. It is therefore run the way Node runs a CommonJS
// file: wrapped in a function that receives `exports` and `module`.
function loadMarked(): typeof Marked {
  const file = join(dirname(require.resolve('marked/package.json')), 'lib', 'marked.umd.js');
  const wrapper = runInThisContext(`(function (exports, module) {${readFileSync(file, 'utf8')}\n})`, {
    filename: file,
  }) as (exports: object, module: { exports: object }) => void;
  const module = { exports: {} };
  wrapper(module.exports, module);
  return (module.exports as { Marked: typeof Marked }).Marked;
}
const MarkedClass = loadMarked();

/** The five characters that matter in HTML text and quoted attributes (mustache's default also escapes / ` =). */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Relative links, fragments, and the schemes a reader clicks on purpose; not javascript:, data: or vbscript:. */
const isSafeUrl = (href: string): boolean => {
  // Browsers ignore control characters and spaces inside a scheme ("java\tscript:"), so the check does too.
  const compact = [...href].filter((c) => c > ' ').join('');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(compact);
  return !scheme || ['http', 'https', 'mailto'].includes(scheme[1].toLowerCase());
};

const safety: MarkedExtension = {
  renderer: {
    // Descriptions are text, and the docs are served from the API's own origin by the mock server: raw HTML in them
    // is shown, not run.
    html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text),
    link(token: Tokens.Link) {
      return isSafeUrl(token.href) ? false : this.parser.parseInline(token.tokens);
    },
    image: (token: Tokens.Image) => (isSafeUrl(token.href) ? false : escapeHtml(token.text)),
  },
};

export interface MarkdownRenderer {
  /** Paragraphs, lists, code blocks: for descriptions and notes. */
  block(text: unknown): string;
  /** One line without a paragraph around it: for summaries and table cells. */
  inline(text: unknown): string;
}

/** Markdown to HTML with raw HTML escaped and script URLs dropped. Non-strings (null, absent) render as ''. */
export function createMarkdownRenderer(): MarkdownRenderer {
  const marked = new MarkedClass({ gfm: true, async: false }, safety);
  return {
    block: (text) => (typeof text === 'string' && text.trim() ? (marked.parse(text) as string) : ''),
    inline: (text) => (typeof text === 'string' && text.trim() ? (marked.parseInline(text) as string) : ''),
  };
}
