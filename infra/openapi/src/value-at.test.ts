import { valueAt } from './value-at';

describe('valueAt()', () => {
  const document = { paths: { '/a': { get: { parameters: [{ name: 'x' }, null] } } }, count: 0 };

  it('follows object keys and array indices, given as numbers or as text', () => {
    expect(valueAt(document, ['paths', '/a', 'get', 'parameters', 0, 'name'])).toBe('x');
    expect(valueAt(document, ['paths', '/a', 'get', 'parameters', '0', 'name'])).toBe('x');
  });

  it('gives the document itself for the empty path, and a falsy value where it is written', () => {
    expect(valueAt(document, [])).toBe(document);
    expect(valueAt(document, ['count'])).toBe(0);
    expect(valueAt(document, ['paths', '/a', 'get', 'parameters', 1])).toBeNull();
  });

  it('gives undefined where the path leaves the document: a missing key, past a scalar or null', () => {
    expect(valueAt(document, ['info'])).toBeUndefined();
    expect(valueAt(document, ['count', 'x'])).toBeUndefined();
    expect(valueAt(document, ['paths', '/a', 'get', 'parameters', 1, 'name'])).toBeUndefined();
    expect(valueAt(undefined, ['a'])).toBeUndefined();
  });

  it('gives undefined for an index past the end or written otherwise than plainly', () => {
    const list = { items: ['a', 'b'] };
    expect(valueAt(list, ['items', 2])).toBeUndefined();
    expect(valueAt(list, ['items', '01'])).toBeUndefined();
    expect(valueAt(list, ['items', '1'])).toBe('b');
  });
});
