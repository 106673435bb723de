import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FOLD_LINES,
  formatJson,
  formatSize,
  readFileStart,
  SHOWN_CHARS,
  SHOWN_LINES,
  toExample,
  toInlineExample,
  toPreview,
  type FileStart,
  type Piece,
} from './preview-file';

const textOf = (lines: Piece[][]): string => lines.map((line) => line.map(([, text]) => text).join('')).join('\n');
const whole = (text: string | Buffer): FileStart => {
  const data = Buffer.from(text);
  return { data, size: data.length };
};

describe('formatJson', () => {
  it.each([
    ['an object', '{"id":1,"tags":["a","b"],"owner":{"name":"Ada","admin":true,"boss":null}}'],
    ['empty containers', '{"list":[],"map":{},"nested":[[],{}],"deep":[[[1]]]}'],
    ['a list of objects', '[{"a":1},{"b":[{"c":-2.5}]}]'],
    ['a bare value', '"just a string"'],
    ['spaces and newlines already there', '{\n    "a" :  [ 1 ,\t2 ],\r\n  "b":{ }\n}'],
    ['strings with escapes and structure inside', '{"q":"a \\"quoted\\" {text}, [with] : colons\\\\","e":""}'],
  ])('lays out %s as JSON.stringify(value, null, 2) does', (_label, text) => {
    expect(textOf(formatJson(text).lines)).toBe(JSON.stringify(JSON.parse(text), null, 2));
    expect(formatJson(text).cut).toBe(false);
  });

  it('keeps every token as the file writes it, where JSON.parse would change it', () => {
    const { lines } = formatJson('{"big":12345678901234567890,"e":"\\u00e9","f":1.0}');
    expect(textOf(lines)).toBe('{\n  "big": 12345678901234567890,\n  "e": "\\u00e9",\n  "f": 1.0\n}');
  });

  it('tells keys from string values and numbers from other literals', () => {
    const [, first, second] = formatJson('{"a":"b","n":-1,"t":true}').lines;
    expect(first).toEqual([
      ['', '  '],
      ['key', '"a"'],
      ['', ': '],
      ['string', '"b"'],
      ['', ','],
    ]);
    expect(second.filter(([kind]) => kind)).toEqual([
      ['key', '"n"'],
      ['number', '-1'],
    ]);
  });

  it('lays out the start of a file read in part, and broken JSON, without throwing', () => {
    expect(textOf(formatJson('{"items":[{"id":1},{"id":2,"na').lines)).toBe(
      '{\n  "items": [\n    {\n      "id": 1\n    },\n    {\n      "id": 2,\n      "na',
    );
    expect(() => formatJson('}}]]{{,,::"')).not.toThrow();
  });

  it('stops past its limit and says so', () => {
    const text = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ id: i })));
    const { lines, cut } = formatJson(text, 200);
    expect(cut).toBe(true);
    expect(textOf(lines).length).toBeLessThan(260);
  });
});

describe('toExample', () => {
  it('pretty-prints a whole JSON file, and keeps it whole for a form', () => {
    const example = toExample(whole('{"id":1}\n'), 'body.json')!;
    expect(example).toMatchObject({ json: true, complete: true, whole: '{\n  "id": 1\n}', size: 9 });
  });

  it('shows other text as it is, whatever the file is called', () => {
    const text = '{"filter": "{{request.body.filter}}", "orders": [ {{#each}} ]}\n';
    const example = toExample(whole(text), 'response.json.hbs')!;
    expect(example).toMatchObject({ json: false, complete: true, whole: text });
    expect(textOf(example.lines)).toBe(text.trimEnd());
    const crlf = toExample(whole('a\r\nb\r\n'), 'x.txt')!;
    expect(textOf(crlf.lines)).toBe('a\nb');
  });

  it('leaves a byte order mark out', () => {
    expect(toExample(whole('\ufeff{"a":1}'), 'a.json')).toMatchObject({ json: true, whole: '{\n  "a": 1\n}' });
  });

  it('shows nothing of binary content: a NUL, or bytes that are not UTF-8', () => {
    expect(toExample(whole(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'logo.png')).toBeUndefined();
    expect(toExample(whole('a\u0000b'), 'a.txt')).toBeUndefined();
    expect(toExample(whole(Buffer.from([0x61, 0xff, 0x62])), 'a.txt')).toBeUndefined();
  });

  it('takes the start of a large file named .json as JSON, a character cut in two left out, and not as whole', () => {
    const data = Buffer.from('[{"name":"é');
    const start = { data: data.subarray(0, data.length - 1), size: 10_000_000 };
    const example = toExample(start, 'big.JSON')!;
    expect(example).toMatchObject({ json: true, complete: false, whole: undefined, size: 10_000_000 });
    expect(textOf(example.lines)).toBe('[\n  {\n    "name": "');
    expect(toExample(start, 'big.txt')).toMatchObject({ json: false, complete: false });
  });

  it('is empty for an empty file', () => {
    expect(toExample(whole(''), 'empty.json')).toMatchObject({ json: false, lines: [], whole: '' });
  });
});

describe('toInlineExample', () => {
  it('pretty-prints a body written in the descriptor', () => {
    expect(toInlineExample({ a: [1, 2] })).toMatchObject({
      json: true,
      complete: true,
      whole: '{\n  "a": [\n    1,\n    2\n  ]\n}',
    });
  });
});

describe('toPreview', () => {
  it('escapes everything, a closing script tag and an img with onerror included, and marks JSON tokens', () => {
    const text = '{"html":"</script><script>alert(1)</script>","img":"<img src=x onerror=alert(2)>"}';
    const preview = toPreview(toExample(whole(text), 'evil.json')!, 'evil.json');
    expect(preview.textHtml).not.toMatch(/<(?!\/?span)/);
    expect(preview.textHtml).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(preview.textHtml).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(preview.textHtml).toContain('<span class="j-key">&quot;html&quot;</span>');
    const plain = toPreview(toExample(whole('<b onmouseover="x()">&amp;</b>'), 'a.txt')!, '');
    expect(plain.textHtml).toBe('&lt;b onmouseover=&quot;x()&quot;&gt;&amp;amp;&lt;/b&gt;');
  });

  it('shows a short file as it is, folds a long one, and cuts a huge one with the link to the whole', () => {
    const short = toPreview(toExample(whole('{"a":1}'), 'a.json')!, 'a.json');
    expect(short).toMatchObject({ lineCount: 3, folded: false, truncated: false, empty: false, size: '7 bytes' });

    const list = JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ id: i })));
    const long = toPreview(toExample(whole(list), 'list.json')!, 'list.json');
    expect(long.lineCount).toBeGreaterThan(FOLD_LINES);
    expect(long).toMatchObject({ folded: true, truncated: false });

    const huge = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ id: i })));
    const cut = toPreview(toExample(whole(huge), 'huge.json')!, 'huge.json');
    expect(cut).toMatchObject({ lineCount: SHOWN_LINES, folded: true, truncated: true, wholeHref: 'huge.json' });

    const oneLine = 'x'.repeat(SHOWN_CHARS * 3);
    const wide = toPreview(toExample(whole(oneLine), 'wide.txt')!, 'wide.txt');
    expect(wide).toMatchObject({ lineCount: 1, truncated: true });
    expect(wide.textHtml).toHaveLength(SHOWN_CHARS);
  });

  it('says a file read in part is truncated, however little of it is shown', () => {
    const preview = toPreview(toExample({ data: Buffer.from('{"a":1}'), size: 1_000_000 }, 'a.json')!, 'a.json');
    expect(preview).toMatchObject({ truncated: true, size: '976.6 KiB' });
  });
});

describe('readFileStart', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rest-tool-preview-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads at most its limit, and tells the size of the whole file', async () => {
    await writeFile(join(dir, 'big.json'), 'x'.repeat(10_000));
    const start = readFileStart(join(dir, 'big.json'), 100)!;
    expect(start.data.toString()).toBe('x'.repeat(100));
    expect(start.size).toBe(10_000);
    expect(readFileStart(join(dir, 'big.json'))!.data).toHaveLength(10_000);
  });

  it('refuses what is not a regular file without waiting: a folder, a FIFO, nothing', () => {
    expect(readFileStart(dir)).toBeUndefined();
    expect(readFileStart(join(dir, 'missing.json'))).toBeUndefined();
    if (process.platform !== 'win32') {
      execFileSync('mkfifo', [join(dir, 'fifo.json')]);
      expect(readFileStart(join(dir, 'fifo.json'))).toBeUndefined();
    }
  });
});

describe('formatSize', () => {
  it.each([
    [0, '0 bytes'],
    [1, '1 byte'],
    [1023, '1023 bytes'],
    [1536, '1.5 KiB'],
    [3 * 1024 * 1024, '3.0 MiB'],
    [5 * 1024 ** 3, '5.0 GiB'],
  ])('%d bytes is %s', (bytes, text) => expect(formatSize(bytes)).toBe(text));
});
