import { describeInvalidId, MAX_ID_BYTES } from './record-id';

describe('describeInvalidId', () => {
  it.each([
    ['a UUID', '2adce0f1-397f-4923-bdf2-16334a76c29f'],
    ['text with a pair of surrogates (an emoji)', 'tree-\u{1F333}'],
    ['an id of exactly the limit', 'a'.repeat(MAX_ID_BYTES)],
    ['the replacement character itself', '\ufffd'],
  ])('accepts %s', (_what, id) => {
    expect(describeInvalidId(id)).toBeUndefined();
  });

  it.each([
    ['a lone high surrogate', '\ud800', /lone surrogate/],
    ['a lone low surrogate after text', 'x\udfff', /lone surrogate/],
    ['a reversed pair', '\udc00\ud800', /lone surrogate/],
    ['one byte past the limit', 'a'.repeat(MAX_ID_BYTES + 1), /at most 512 bytes .*513/],
    ['a short id that is long in UTF-8', '\u00e9'.repeat(300), /at most 512 bytes .*600/],
  ])('refuses %s, saying why', (_what, id, message) => {
    expect(describeInvalidId(id)).toMatch(message);
  });
});
