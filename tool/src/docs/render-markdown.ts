// marked 15: the last major that ships CommonJS (16 is ESM-only, which this CommonJS package on Node 20 and jest's
// CommonJS runtime cannot require). entities 7 likewise: the last major with a CommonJS build.
import { decodeHTML, decodeHTMLAttribute } from 'entities';
import { Marked, type MarkedExtension, type Tokens } from 'marked';

/** The five characters that matter in HTML text and quoted attributes (mustache's default also escapes / ` =). */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * Two pages of different schemes and hosts: a reference that stays on both is relative (no scheme, no host), so it
 * stays on whatever site, or folder opened from disk, the docs are read from.
 */
const PAGES = ['https://a.invalid/docs/services/x/service.html', 'http://b.invalid/docs/services/x/service.html'].map(
  (page) => new URL(page),
);

/** Where a link leads: within the docs, to mail, plainly to another web site. */
interface LinkTarget {
  kind: 'site' | 'mail' | 'external';
  href: string;
}

/** What the WHATWG URL parser makes of `href` on a docs page; undefined for what the docs do not link to. */
function classify(href: string): LinkTarget | undefined {
  let urls: URL[];
  try {
    urls = PAGES.map((page) => new URL(href, page));
  } catch {
    return undefined;
  }
  if (urls.every((url, i) => url.protocol === PAGES[i].protocol && url.host === PAGES[i].host)) {
    return { kind: 'site', href };
  }
  // Not relative: a scheme of its own, or a host (`//host`, `/\host`), which without a scheme only looks relative.
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  if (url.protocol === 'mailto:') return { kind: 'mail', href };
  // Written out in full, so that `https:host` cannot mean a path on an https page and another host elsewhere.
  if (url.protocol === 'https:' || url.protocol === 'http:') return { kind: 'external', href: url.href };
  return undefined;
}

/**
 * Checks a link as the browser will follow it. marked hands the destination over with its character references
 * still in (the browser would decode them in the attribute), so it is decoded here first, with the browser's own
 * rules for attribute values, then percent-encoded as marked encodes it; both are parsed by the WHATWG URL parser,
 * the one browsers use (tabs and newlines dropped, leading controls and spaces trimmed, backslashes read as slashes,
 * scheme case folded), and must lead to the same kind of place. The href written is the encoded string checked, so
 * what the browser decodes from the page is what passed.
 */
export function checkLink(destination: string): LinkTarget | undefined {
  const decoded = decodeHTMLAttribute(destination);
  let encoded: string;
  try {
    // encodeURI as marked's own cleanUrl does (spaces, non-ASCII), keeping percent escapes already there.
    encoded = encodeURI(decoded).replace(/%25/g, '%');
  } catch {
    return undefined; // a lone surrogate: no URL at all
  }
  // `java<tab>script:` is javascript: as written, and a harmless relative path once encoded: it is not a link.
  const [asWritten, target] = [classify(decoded), classify(encoded)];
  return asWritten && target && asWritten.kind === target.kind ? target : undefined;
}

/** A link to another site opens apart: the docs page stays, and the other site gets no handle on it nor its URL. */
const EXTERNAL_ATTRIBUTES = ' class="external" target="_blank" rel="noopener noreferrer"';

/** Text for an attribute (a title, an image's alt): decoded once as Markdown does, then escaped for the attribute. */
const toAttributeText = (text: string): string => escapeHtml(decodeHTML(text));

const titleAttribute = (title: string | null | undefined): string =>
  title ? ` title="${toAttributeText(title)}"` : '';

const linkHtml = (target: LinkTarget, title: string | null | undefined, innerHtml: string): string =>
  `<a href="${escapeHtml(target.href)}"${titleAttribute(title)}${target.kind === 'external' ? EXTERNAL_ATTRIBUTES : ''}>` +
  `${innerHtml}</a>`;

const safety: MarkedExtension = {
  renderer: {
    // Descriptions are text, and the docs are served from the API's own origin by the mock server: raw HTML in them
    // is shown, not run.
    html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text),
    link(token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      const target = checkLink(token.href);
      return target ? linkHtml(target, token.title, text) : text;
    },
    image(token: Tokens.Image) {
      const target = checkLink(token.href);
      // The alt text as plain text, escaped here: marked 15 writes it into the attribute as it is, quotes included.
      const alt = toAttributeText(this.parser.parseInline(token.tokens ?? [], this.parser.textRenderer));
      if (target?.kind === 'site') {
        return `<img src="${escapeHtml(target.href)}" alt="${alt}"${titleAttribute(token.title)}>`;
      }
      // An image from elsewhere would be fetched as the page opens (nothing is, but the API): a link to it instead.
      if (target?.kind === 'external') return linkHtml(target, token.title, alt || escapeHtml(target.href));
      return alt;
    },
  },
};

export interface MarkdownRenderer {
  /** Paragraphs, lists, code blocks: for descriptions and notes. */
  block(text: unknown): string;
  /** One line without a paragraph around it: for summaries and table cells. */
  inline(text: unknown): string;
}

/** Markdown to HTML with raw HTML escaped and links checked (checkLink). Non-strings (null, absent) render as ''. */
export function createMarkdownRenderer(): MarkdownRenderer {
  const marked = new Marked({ gfm: true, async: false }, safety);
  return {
    block: (text) => (typeof text === 'string' && text.trim() ? marked.parse(text, { async: false }) : ''),
    inline: (text) => (typeof text === 'string' && text.trim() ? marked.parseInline(text, { async: false }) : ''),
  };
}
