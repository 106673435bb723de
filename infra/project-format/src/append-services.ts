import { isDeepStrictEqual } from 'node:util';
import { isJsonObject } from '@restbus/infra';
import { isScalar, isSeq, parseDocument } from 'yaml';

/** A list item as YAML: plain when that reads back as the same string, else a JSON (= YAML double-quoted) string. */
function toItem(entry: string, flow: boolean): string {
  const plain = flow ? /^\/[\w./~-]*$/ : /^\/[\w./~{}()@+=-]*$/;
  return plain.test(entry) ? entry : JSON.stringify(entry);
}

/**
 * Adds entries at the end of the `services` list of a config.yml text, touching nothing else: comments, quoting,
 * indentation and line endings stay as they were. The list may be a block list or a flow list (`[…]`). The result is
 * parsed again and must equal the original plus the entries, else this throws.
 */
export function appendServices(text: string, entries: readonly string[]): string {
  if (entries.length === 0) return text;
  const document = parseDocument(text);
  const before: unknown = document.toJS();
  const list = document.get('services', true);
  if (!isSeq(list) || !list.range || !isJsonObject(before) || !Array.isArray(before.services)) {
    throw new Error('services is not a list written in the file');
  }
  const services: unknown[] = before.services;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let result: string;
  if (list.flow) {
    const close = text.lastIndexOf(']', list.range[1]);
    const head = text.slice(0, close).trimEnd();
    const separator = head.endsWith('[') || head.endsWith(',') ? '' : ', ';
    const items = entries.map((entry) => toItem(entry, true)).join(', ');
    // Whatever stood between the last item and "]" (spaces, a newline) stays: "[ a ]" becomes "[ a, b ]".
    result = `${text.slice(0, head.length)}${separator}${items}${text.slice(head.length)}`;
  } else {
    const last = list.items[list.items.length - 1];
    if (!isScalar(last) || !last.range) throw new Error('the last services entry is not a plain value');
    // The column of the last item's "-": the new items line up with it.
    let dash = last.range[0] - 1;
    while (dash >= 0 && text[dash] !== '-') dash -= 1;
    const lineStart = text.lastIndexOf('\n', dash) + 1;
    const indent = text.slice(lineStart, dash);
    if (!/^[ ]*$/.test(indent)) throw new Error('the services list is not laid out one item per line');
    let lineEnd = text.indexOf('\n', last.range[1]);
    if (lineEnd < 0) lineEnd = text.length;
    else if (text[lineEnd - 1] === '\r') lineEnd -= 1;
    const lines = entries.map((entry) => `${eol}${indent}- ${toItem(entry, false)}`).join('');
    result = `${text.slice(0, lineEnd)}${lines}${text.slice(lineEnd)}`;
  }
  const after = parseDocument(result);
  const expected = { ...before, services: [...services, ...entries] };
  if (after.errors.length || !isDeepStrictEqual(after.toJS(), expected)) {
    throw new Error('the edited file did not read back as the original plus the new entries');
  }
  return result;
}
