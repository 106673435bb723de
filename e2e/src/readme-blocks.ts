// The shell blocks of the READMEs, read as a person reads them: one command per line, its comment beside it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One command of a README block: continuation lines joined, the comment after it apart. */
export interface ShellCommand {
  /** The command as written, without its comment. */
  command: string;
  /** The comment after the command, without `#`; '' when there is none. */
  comment: string;
  /** The README line the command starts on. */
  line: number;
}

/** A fenced block of a README in a shell language (```sh and its kin). */
export interface ShellBlock {
  /** The README's path in the repository, e.g. `tool/README.md`. */
  readme: string;
  /** The line of its opening fence. */
  line: number;
  commands: ShellCommand[];
}

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

/** Folders whose READMEs are no instructions for a user: dependencies, builds, test fixtures and output. */
const NOT_SEARCHED = new Set(['node_modules', 'dist', '__tests__', 'test-artifacts', 'bench-results']);

/** Every README.md of the repository (paths relative to it, sorted), but in dependencies, builds and fixtures. */
export function findReadmes(root: string, folder = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory() && !entry.name.startsWith('.') && !NOT_SEARCHED.has(entry.name))
      found.push(...findReadmes(root, path));
    else if (entry.isFile() && entry.name === 'README.md') found.push(path);
  }
  return found.sort();
}

export function readShellBlocks(root: string, readme: string): ShellBlock[] {
  return extractShellBlocks(readFileSync(join(root, readme), 'utf8'), readme);
}

/**
 * The fenced blocks in a shell language, as CommonMark reads fences: three or more backticks or tildes, closed by
 * a run of the same character at least as long. Any indentation opens one, so a block inside a list item counts.
 */
export function extractShellBlocks(markdown: string, readme: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let at = 0; at < lines.length; at++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[at]);
    if (!open) continue;
    const [, indent, fence, language] = open;
    const closing = new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`);
    const body: string[] = [];
    let end = at + 1;
    for (; end < lines.length && !closing.test(lines[end]); end++) {
      body.push(lines[end].slice(Math.min(indent.length, lines[end].search(/\S|$/))));
    }
    if (SHELL_LANGUAGES.has(language.toLowerCase())) {
      blocks.push({ readme, line: at + 1, commands: splitCommands(body, at + 2) });
    }
    at = end;
  }
  return blocks;
}

/** The commands of a block's lines: `\` continuations joined; blank lines and lines of only a comment left out. */
export function splitCommands(lines: string[], firstLine = 1): ShellCommand[] {
  const commands: ShellCommand[] = [];
  for (let at = 0; at < lines.length; at++) {
    const line = firstLine + at;
    let text = lines[at];
    while (text.endsWith('\\') && at + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++at].trim()}`;
    const start = commentStart(text);
    const command = text.slice(0, start).trim().replace(/\s+/g, ' ');
    if (!command) continue;
    commands.push({ command, comment: text.slice(start + 1).trim(), line });
  }
  return commands;
}

/**
 * Where a shell comment starts: a `#` at the start of a word and outside quotes (`'/a#b'`, `$#` and `${#x}` are
 * no comments); the text's length when it has none.
 */
function commentStart(text: string): number {
  let quote: string | undefined;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (quote) {
      if (char === '\\' && quote === '"') at++;
      else if (char === quote) quote = undefined;
    } else if (char === '\\') at++;
    else if (char === "'" || char === '"') quote = char;
    else if (char === '#' && (at === 0 || /\s/.test(text[at - 1]))) return at;
  }
  return text.length;
}

/** The parts of an `&&` list (`a && cd b && c` → `a`, `cd b`, `c`), split outside quotes. */
export function splitAndList(command: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let from = 0;
  for (let at = 0; at < command.length; at++) {
    const char = command[at];
    if (quote) {
      if (char === '\\' && quote === '"') at++;
      else if (char === quote) quote = undefined;
    } else if (char === '\\') at++;
    else if (char === "'" || char === '"') quote = char;
    else if (char === '&' && command[at + 1] === '&') {
      parts.push(command.slice(from, at).trim());
      from = at + 2;
      at++;
    }
  }
  parts.push(command.slice(from).trim());
  return parts;
}

/** The command without a trailing `&` (run in the background), and whether it had one. */
export function takeBackground(command: string): { command: string; background: boolean } {
  const match = /^(.*[^&])\s*&$/.exec(command);
  return match ? { command: match[1].trim(), background: true } : { command, background: false };
}
