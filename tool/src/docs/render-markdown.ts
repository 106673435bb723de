// marked 15: the last major that ships CommonJS (16 is ESM-only, which this CommonJS package on Node 20 and jest's
// CommonJS runtime cannot require).
import { Marked, type MarkedExtension, type Tokens } from 'marked';

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
  const marked = new Marked({ gfm: true, async: false }, safety);
  return {
    block: (text) => (typeof text === 'string' && text.trim() ? (marked.parse(text) as string) : ''),
    inline: (text) => (typeof text === 'string' && text.trim() ? (marked.parseInline(text) as string) : ''),
  };
}
