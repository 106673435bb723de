import { isNestedDeeperThan } from './find-json-depth';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('isNestedDeeperThan', () => {
  const cases: Array<[string, string, number, boolean]> = [
    ['an object two levels deep', '{"a":[1]}', 2, false],
    ['an object three levels deep', '{"a":[{}]}', 2, true],
    ['brackets inside strings', '{"a":"[[[[{{{{"}', 1, false],
    ['an escaped quote that does not end the string', '{"a":"\\"[[[["}', 1, false],
    ['an escaped backslash before the closing quote', '{"a":"\\\\","b":[[1]]}', 2, true],
    ['siblings that each stay within the limit', '[[1],[2],{"a":[3]}]', 3, false],
  ];

  it.each(cases)('reads %s the same in text and in UTF-8 bytes', (_what, json, max, deeper) => {
    expect(isNestedDeeperThan(json, max)).toBe(deeper);
    expect(isNestedDeeperThan(encode(json), max)).toBe(deeper);
  });

  it('counts non-ASCII text around the brackets alike in both forms', () => {
    const json = '{"név":"árvíztűrő [","x":[[["é"]]]}';
    expect(isNestedDeeperThan(json, 3)).toBe(true);
    expect(isNestedDeeperThan(encode(json), 3)).toBe(true);
    expect(isNestedDeeperThan(json, 4)).toBe(false);
    expect(isNestedDeeperThan(encode(json), 4)).toBe(false);
  });
});
