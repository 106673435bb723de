import type { MarkdownRenderer } from './render-markdown';

/** The longest summary the index shows; a longer first sentence is cut at a word, with an ellipsis. */
export const SUMMARY_LIMIT = 160;

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** A line that starts another Markdown block, which is not part of the first paragraph. */
const BLOCK_START = /^(#{1,6}\s|[-*+]\s|\d+[.)]\s|>|```|~~~|\|)/;

/** Dots that end an abbreviation, not a sentence. */
const ABBREVIATION = /\b(e\.g|i\.e|etc|vs|cf|approx)\.$/i;

/** The first paragraph of Markdown (or its heading, when it starts with one), as one line. */
function firstParagraph(text: string): string {
  const lines = text.trim().split('\n');
  const heading = /^#{1,6}\s+(.*?)\s*#*$/.exec(lines[0]);
  if (heading) return heading[1];
  const paragraph = [lines[0]];
  for (const line of lines.slice(1)) {
    if (!line.trim() || BLOCK_START.test(line.trim())) break;
    paragraph.push(line.trim());
  }
  return paragraph.join(' ');
}

/** The end of the first sentence: after `.`, `!` or `?` followed by a space or the end; -1 when there is none. */
function firstSentenceEnd(text: string): number {
  const ends = /[.!?](?=\s|$)/g;
  for (let match = ends.exec(text); match; match = ends.exec(text)) {
    const end = match.index + 1;
    if (!ABBREVIATION.test(text.slice(0, end))) return end;
  }
  return -1;
}

/**
 * The summary of a service in the index, as plain text: the first sentence of its description's first paragraph
 * (Markdown rendered, then its tags dropped: a link there is written for the service page), or, when that sentence
 * is longer than the limit, its words up to the limit and an ellipsis. Never a cut inside a word or a sentence.
 */
export function toSummary(description: unknown, markdown: MarkdownRenderer, limit = SUMMARY_LIMIT): string {
  if (typeof description !== 'string' || !description.trim()) return '';
  const text = markdown
    .inline(firstParagraph(description))
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity])
    .replace(/\s+/g, ' ')
    .trim();
  const end = firstSentenceEnd(text);
  const sentence = end === -1 ? text : text.slice(0, end);
  if (sentence.length <= limit) return sentence;
  // The words that fit: one character more is looked at, so that a word ending right at the limit stays.
  const words = sentence.slice(0, limit + 1).replace(/\s+\S*$/, '');
  // A single word longer than the limit is cut after all: there is no better place.
  const cut = words.length <= limit ? words : sentence.slice(0, limit);
  return `${cut.replace(/[\s,;:]+$/, '')}…`;
}
