import type { SeededRandom } from '@restbus/infra/testing';

/** What a hostile case puts where a project file was: bytes, a FIFO, a symlink, or a folder. */
export type HostileContent = { bytes: Buffer } | { fifo: true } | { symlinkTo: string } | { folder: true };

export interface HostileYamlFile {
  kind: string;
  /** The project file it replaces, relative to the project. */
  file: string;
  content: HostileContent;
}

const MIB = 1024 * 1024;
const TARGETS = ['services/echo/service.yml', 'services/users/service.yml', 'config.yml', 'server/config.yml'];

const utf8 = (text: string): HostileContent => ({ bytes: Buffer.from(text, 'utf8') });
const lines = (count: number, make: (i: number) => string): string =>
  Array.from({ length: count }, (_, i) => make(i)).join('\n');

/**
 * About forty hostile YAML files for a project, drawn from a seeded generator: alias bombs (nested, wide, through
 * merge keys), recursive aliases and merge loops, deep flow and block nesting, `- - -` chains, huge scalars, files
 * past 2 MiB, YAML 1.1 and custom tags, duplicate keys, `__proto__` keys, broken encodings, BOMs, NULs, a FIFO, a
 * symlink to /dev/zero, CRLF and tabs. `original(file)` is the good text of a file, for the cases that spoil one.
 */
export function createHostileYamlFiles(random: SeededRandom, original: (file: string) => string): HostileYamlFile[] {
  const { pick, below, text } = random;
  const target = (): string => pick(TARGETS);
  const cases: Array<[string, (file: string) => HostileContent]> = [
    [
      'nested alias bomb',
      () => {
        const width = 8 + below(4);
        const depth = 8 + below(3);
        return utf8(
          `a0: &a0 [${Array(width).fill('lol').join(', ')}]\n` +
            lines(depth, (i) => `a${i + 1}: &a${i + 1} [${Array(width).fill(`*a${i}`).join(', ')}]`),
        );
      },
    ],
    [
      'wide alias bomb',
      () =>
        utf8(
          `big: &b "${'x'.repeat(50_000 + below(50_000))}"\nlist: [${Array(400 + below(400))
            .fill('*b')
            .join(', ')}]\n`,
        ),
    ],
    [
      'block alias bomb',
      () => {
        const width = 10;
        return utf8(
          `l0: &l0\n${lines(width, () => '  - lol')}\n` +
            Array.from({ length: 9 }, (_, i) => `l${i + 1}: &l${i + 1}\n${lines(width, () => `  - *l${i}`)}`).join(
              '\n',
            ),
        );
      },
    ],
    [
      'merge-key bomb',
      () =>
        utf8(
          `m0: &m0 {${lines(10, (i) => `k${i}: ${'v'.repeat(20)}`).replace(/\n/g, ', ')}}\n` +
            lines(12, (i) => `m${i + 1}: &m${i + 1} [${Array(8).fill(`{<<: *m${i}}`).join(', ')}]`),
        ),
    ],
    ['recursive alias in a sequence', () => utf8('name: &a [x, *a]\n')],
    ['recursive alias in a map', () => utf8(`name: Echo\nx: &a\n  y: *a\n`)],
    ['merge-key loop', () => utf8('a: &a\n  <<: *a\n  b: 1\n')],
    ['merge-key loop through a list', () => utf8('a: &a\n  b: 1\n  c:\n    <<: [*a, *a]\n')],
    ['undefined alias', () => utf8(`name: *${text(8, 'abcdefgh')}\n`)],
    ['alias before its anchor', () => utf8('x: *later\ny: &later 1\n')],
    ['deep flow sequences', () => utf8('['.repeat(pick([201, 5_000, 1_000_000, 2 * MIB - 1])))],
    ['deep flow maps', () => utf8(`${'{a: '.repeat(300 + below(3000))}1${'}'.repeat(300)}`)],
    ['deep block maps', () => utf8(lines(250 + below(1000), (i) => `${' '.repeat(i)}k${i}:`))],
    ['deep block sequences', () => utf8(lines(250 + below(1000), (i) => `${' '.repeat(i * 2)}-`))],
    ['a - - - chain', () => utf8(`${'- '.repeat(pick([201, 5_000, 500_000]))}x\n`)],
    ['a ? ? ? chain', () => utf8(`${'? '.repeat(pick([201, 5_000, 500_000]))}x\n`)],
    ['a : : : chain', () => utf8(`${': '.repeat(pick([201, 5_000, 500_000]))}x\n`)],
    ['nesting just inside the bound', () => utf8(`x: ${'['.repeat(198)}${']'.repeat(198)}\n`)],
    [
      'a huge plain scalar',
      (file) => utf8(`${original(file)}x-huge: ${'y'.repeat(2 * MIB - original(file).length - 100)}\n`),
    ],
    [
      'a huge escaped scalar',
      (file) => utf8(`${original(file)}x-huge: "${'\\u0041\\x42\\n'.repeat(100_000 + below(50_000))}"\n`),
    ],
    [
      'a huge block scalar',
      (file) => utf8(`${original(file)}x-huge: |\n${lines(100_000 + below(50_000), () => '  some text of a line')}\n`),
    ],
    ['an unterminated quote of 2 MiB', () => utf8(`name: "${'z'.repeat(2 * MIB - 20)}`)],
    [
      'a file past 2 MiB',
      (file) => utf8(`${original(file)}# ${'c'.repeat(2 * MIB + 1 + below(1000) - original(file).length)}\n`),
    ],
    // Under half a MiB each, yet a check per pair of keys, or per pair of aliases, would take seconds.
    ['a map of many keys', () => utf8(lines(25_000 + below(5_000), (i) => `k${i}: v${i}`))],
    [
      'many anchors and aliases',
      () => utf8(lines(14_000 + below(3_000), (i) => `- &a${i % 500} v${i}\n- *a${i % 500}`)),
    ],
    ['a long anchor name', () => utf8(`x: &${'n'.repeat(1_000_000)} 1\ny: *${'n'.repeat(1_000_000)}\n`)],
    ['!!binary', (file) => utf8(`${original(file)}x-blob: !!binary ${Buffer.alloc(3000, 7).toString('base64')}\n`)],
    ['!!set', (file) => utf8(`${original(file)}x-set: !!set {a, b, c}\n`)],
    ['!!omap', (file) => utf8(`${original(file)}x-omap: !!omap [a: 1, b: 2]\n`)],
    ['!!timestamp', (file) => utf8(`${original(file)}x-when: !!timestamp 2001-12-14t21:59:43.10-05:00\n`)],
    ['!!python/object', (file) => utf8(`${original(file)}x-run: !!python/object/apply:os.system ['touch pwned']\n`)],
    ['!!js/function', (file) => utf8(`${original(file)}x-fn: !!js/function 'function () { return 1 }'\n`)],
    ['a custom tag', (file) => utf8(`${original(file)}x-tag: !${text(6, 'abcxyz')} {a: 1}\n`)],
    ['a %TAG directive', (file) => utf8(`%TAG !e! tag:evil.example,2000:\n---\n${original(file)}x-tag: !e!thing 1\n`)],
    ['a verbatim tag', (file) => utf8(`${original(file)}x-tag: !<tag:yaml.org,2002:binary> aGk=\n`)],
    ['duplicate keys', (file) => utf8(`${original(file)}${original(file).split('\n')[0]}\n`)],
    ['duplicate keys in other spellings', () => utf8(`"name": a\nname: b\n? name\n: c\n`)],
    [
      '__proto__ keys',
      (file) =>
        utf8(`${original(file)}__proto__: { polluted: yes }\nx-merge:\n  <<: { __proto__: { polluted: yes } }\n`),
    ],
    [
      'non-UTF-8 bytes',
      (file) => {
        const good = Buffer.from(original(file), 'utf8');
        const at = below(good.length);
        return {
          bytes: Buffer.concat([good.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xe9]), good.subarray(at)]),
        };
      },
    ],
    [
      'UTF-16 with its BOM',
      (file) => ({ bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(original(file), 'utf16le')]) }),
    ],
    ['a UTF-8 BOM', (file) => utf8(`\ufeff${original(file)}`)],
    [
      'NUL bytes',
      (file) => {
        const good = original(file);
        const at = below(good.length);
        return utf8(`${good.slice(0, at)}\0\0${good.slice(at)}`);
      },
    ],
    ['a FIFO', () => ({ fifo: true })],
    ['a symlink to /dev/zero', () => ({ symlinkTo: '/dev/zero' })],
    ['a symlink to itself', (file) => ({ symlinkTo: file.split('/').pop() as string })],
    ['a folder', () => ({ folder: true })],
    ['CRLF line ends', (file) => utf8(original(file).replace(/\n/g, '\r\n'))],
    ['CR line ends', (file) => utf8(original(file).replace(/\n/g, '\r'))],
    ['tabs for indentation', (file) => utf8(original(file).replace(/^ {2}/gm, '\t'))],
    ['several documents', (file) => utf8(`${original(file)}---\n${original(file)}---\nname: other\n`)],
    ['an empty file', () => utf8('')],
    ['a null document', () => utf8('~\n')],
    ['complex keys', () => utf8('? [a, b]\n: c\n{[x]: y}: z\n? &k {a: 1}\n: *k\n')],
    ['Unicode line separators', (file) => utf8(original(file).replace(/\n/g, '\u2028'))],
    ['control characters', (file) => utf8(`${original(file)}x-ctl: a\x01b\x1bc\x7f\n`)],
    ['a %YAML 9.9 directive', (file) => utf8(`%YAML 9.9\n---\n${original(file)}`)],
  ];
  return cases.map(([kind, make]) => {
    const file = target();
    return { kind, file, content: make(file) };
  });
}
