/** At most this many names in a message listing what a document declares: a document can declare thousands. */
const LISTED = 10;

/** `a, b, c`, or `a, b, …, j, … (12 in all)`: a message stays short whatever the document declares. */
export function listNames(names: readonly string[]): string {
  const shown = names.slice(0, LISTED).map((name) => (name.length > 64 ? `${name.slice(0, 64)}…` : name));
  return names.length > LISTED ? `${shown.join(', ')}, … (${names.length} in all)` : shown.join(', ');
}
