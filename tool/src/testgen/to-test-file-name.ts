// Characters Windows refuses in file names (and the path separators of every OS), control characters included.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[<>:"/\\|?*\u0000-\u001f\u007f]/g;
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;
const MAX_LENGTH = 120;

/**
 * A test case's name as a file name that is valid on Linux, macOS and Windows: no separators or characters Windows
 * refuses, no trailing dots or spaces, not a reserved device name, not too long. Plain names stay as they are, so the
 * files of a project made by upstream rest-tool (`Get Monitoring Is Alive.js`) keep their names.
 */
export function toTestFileName(name: string, extension: string): string {
  let base = name.normalize('NFC').replace(/\s+/g, ' ').replace(UNSAFE, '-').trim();
  base = [...base]
    .slice(0, MAX_LENGTH)
    .join('')
    .replace(/[. ]+$/, '')
    .replace(/^[. ]+/, '');
  if (!base) base = 'test-case';
  if (RESERVED.test(base)) base = `${base}-`;
  return `${base}${extension}`;
}
