/**
 * Whether a NATS subject filter (`a.*.c`, `a.>`) matches a concrete subject: `*` stands for one token, a last `>`
 * for one or more.
 */
export function subjectMatches(filter: string, subject: string): boolean {
  const want = filter.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '>') return i === want.length - 1 && have.length > i;
    if (i >= have.length || (want[i] !== '*' && want[i] !== have[i])) return false;
  }
  return want.length === have.length;
}
