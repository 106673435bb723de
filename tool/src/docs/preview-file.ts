import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { escapeHtml } from './render-markdown';

// Mock bodies and schemas shown on the pages: JSON pretty-printed (every number, string and escape kept as the file
// writes it: JSON.parse would round 12345678901234567890), other text as is, binary files not at all. Bounded: a
// page shows at most SHOWN_LINES lines or SHOWN_CHARS characters of a file, and no more than READ_LIMIT bytes of it
// are ever read, so a 2 GB mock file costs what a 256 KiB one does.

/** The most of a file read: every usual mock body is read whole, so it can be checked to be JSON. */
export const READ_LIMIT = 256 * 1024;
/** The most a page shows of one file; the link to the whole file is beside it. */
export const SHOWN_LINES = 150;
export const SHOWN_CHARS = 16 * 1024;
/** Past this many lines an example is folded away in a `<details>`. */
export const FOLD_LINES = 15;
/** The most text formatted; a request body longer than this once formatted is not put into a Try-it form. */
export const FORMAT_LIMIT = 64 * 1024;

/** The start of a file (at most the limit), and the size of the whole file. */
export interface FileStart {
  data: Buffer;
  size: number;
}

/**
 * Reads at most `limit` bytes from the start of a regular file; undefined when it is not one (gone, a folder, a
 * FIFO: opened without waiting for a writer, then refused).
 */
export function readFileStart(path: string, limit = READ_LIMIT): FileStart | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return undefined;
    const data = Buffer.alloc(Math.min(info.size, limit));
    let filled = 0;
    while (filled < data.length) {
      const read = readSync(fd, data, filled, data.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return { data: data.subarray(0, filled), size: Math.max(info.size, filled) };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** One piece of a formatted line: its class (`key`, `string`, `number`, `literal`, or '' for the rest) and text. */
export type Piece = [kind: string, text: string];

export interface Example {
  json: boolean;
  lines: Piece[][];
  /** Whether `lines` are the whole file. */
  complete: boolean;
  /** The whole file as a form takes it (pretty JSON, or the text as is), when complete; else undefined. */
  whole: string | undefined;
  /** Of the whole file, in bytes. */
  size: number;
}

const isSpace = (c: string): boolean => c === ' ' || c === '\n' || c === '\r' || c === '\t';
const STRUCTURE = new Set(['{', '}', '[', ']', ',', ':', '"']);

/**
 * JSON re-indented by two spaces, as `JSON.stringify(value, null, 2)` lays it out, but from the text: every token is
 * kept as written. Works on any prefix of a JSON text too (a file read in part), and on broken JSON without throwing.
 * Stops once `limit` characters are laid out; `cut` says whether it stopped before the end.
 */
export function formatJson(text: string, limit = FORMAT_LIMIT): { lines: Piece[][]; cut: boolean } {
  const lines: Piece[][] = [];
  let depth = 0;
  let line: Piece[] = [];
  // Nothing on the line but its indent yet.
  let fresh = true;
  let length = 0;
  const indent = (): Piece[] => (depth > 0 ? [['', '  '.repeat(depth)]] : []);
  const push = (kind: string, value: string): void => {
    line.push([kind, value]);
    fresh = false;
    length += value.length;
  };
  const newLine = (): void => {
    lines.push(line);
    line = indent();
    fresh = true;
    length += 1 + 2 * depth;
  };
  const skipSpace = (from: number): number => {
    while (from < text.length && isSpace(text[from])) from++;
    return from;
  };
  let i = 0;
  while (i < text.length && length <= limit) {
    const c = text[i];
    if (isSpace(c)) {
      i++;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      const next = skipSpace(i + 1);
      if (text[next] === close) {
        push('', c + close);
        i = next + 1;
      } else {
        push('', c);
        depth++;
        newLine();
        i++;
      }
    } else if (c === '}' || c === ']') {
      depth = Math.max(0, depth - 1);
      if (!fresh) newLine();
      else line = indent();
      push('', c);
      i++;
    } else if (c === ',') {
      push('', ',');
      newLine();
      i++;
    } else if (c === ':') {
      push('', ': ');
      i++;
    } else if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const value = text.slice(i, Math.min(end + 1, text.length));
      push(text[skipSpace(end + 1)] === ':' ? 'key' : 'string', value);
      i = end + 1;
    } else {
      let end = i + 1;
      while (end < text.length && !isSpace(text[end]) && !STRUCTURE.has(text[end])) end++;
      const value = text.slice(i, end);
      push(/^-?\d/.test(value) ? 'number' : 'literal', value);
      i = end;
    }
  }
  if (!fresh) lines.push(line);
  return { lines, cut: i < text.length };
}

const linesOfText = (text: string, limit: number): { lines: Piece[][]; cut: boolean } => {
  const shown = text.length > limit ? text.slice(0, limit) : text;
  const lines = shown.split('\n').map((line): Piece[] => [['', line.endsWith('\r') ? line.slice(0, -1) : line]]);
  // The newline that ends the last line starts no line of its own.
  if (lines.length && lines[lines.length - 1][0][1] === '') lines.pop();
  return { lines, cut: shown.length < text.length };
};

const looksLikeJson = (name: string, text: string): boolean => /\.json$/i.test(name) && /^\s*[[{]/.test(text);

/**
 * What a page shows of a file: undefined for binary content (a NUL, or bytes that are not UTF-8). The whole file is
 * JSON when it parses; a file read in part is taken as JSON when it is named `.json` and starts like JSON.
 */
export function toExample(start: FileStart, name: string): Example | undefined {
  const complete = start.data.length >= start.size;
  let text: string;
  try {
    // stream: a multi-byte character cut by the read limit is left out instead of being an error.
    text = new TextDecoder('utf-8', { fatal: true }).decode(start.data, { stream: !complete });
  } catch {
    return undefined;
  }
  if (text.includes('\u0000')) return undefined;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let json: boolean;
  if (complete) {
    try {
      JSON.parse(text);
      json = true;
    } catch {
      json = false;
    }
  } else json = looksLikeJson(name, text);
  const formatted = json ? formatJson(text) : linesOfText(text, FORMAT_LIMIT);
  const whole = !complete || formatted.cut ? undefined : json ? toText(formatted.lines) : text;
  return { json, lines: formatted.lines, complete: complete && !formatted.cut, whole, size: start.size };
}

/** A body written in the descriptor itself (`mockBody: { … }`): its JSON. */
export function toInlineExample(value: unknown): Example {
  const text = JSON.stringify(value) ?? 'null';
  const formatted = formatJson(text);
  return {
    json: true,
    lines: formatted.lines,
    complete: !formatted.cut,
    whole: formatted.cut ? undefined : toText(formatted.lines),
    size: Buffer.byteLength(text),
  };
}

const toText = (lines: Piece[][]): string => lines.map((line) => line.map(([, text]) => text).join('')).join('\n');

const toHtml = (lines: Piece[][]): string =>
  lines
    .map((line) =>
      line
        .map(([kind, text]) => (kind ? `<span class="j-${kind}">${escapeHtml(text)}</span>` : escapeHtml(text)))
        .join(''),
    )
    .join('\n');

/** `812 bytes`, `12.5 KiB`, `3.0 MiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GiB`;
}

/** The view of a shown file (README: `preview`). */
export interface Preview {
  json: boolean;
  /** The shown text as HTML: escaped, JSON tokens in `<span class="j-key">` and the like. */
  textHtml: string;
  lineCount: number;
  /** Long: folded in a `<details>`. */
  folded: boolean;
  /** Only the start of the file is shown. */
  truncated: boolean;
  empty: boolean;
  /** Of the whole file: `812 bytes`. */
  size: string;
  /** The copied file, for the whole of a truncated one; '' when there is none (a body in the descriptor). */
  wholeHref: string;
}

/** Cuts an example to what a page shows, SHOWN_LINES lines and SHOWN_CHARS characters at most. */
export function toPreview(example: Example, wholeHref: string): Preview {
  const shown: Piece[][] = [];
  let chars = 0;
  let cut = false;
  for (const line of example.lines) {
    if (shown.length === SHOWN_LINES || chars >= SHOWN_CHARS) {
      cut = true;
      break;
    }
    const kept: Piece[] = [];
    for (const [kind, text] of line) {
      const room = SHOWN_CHARS - chars;
      if (text.length > room) {
        kept.push([kind, text.slice(0, room)]);
        chars += room;
        cut = true;
        break;
      }
      kept.push([kind, text]);
      chars += text.length;
    }
    shown.push(kept);
    chars += 1;
    if (cut) break;
  }
  return {
    json: example.json,
    textHtml: toHtml(shown),
    lineCount: shown.length,
    folded: shown.length > FOLD_LINES,
    truncated: cut || !example.complete,
    empty: example.lines.length === 0,
    size: formatSize(example.size),
    wholeHref,
  };
}
