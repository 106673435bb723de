import { readStyledValue } from './read-styled-value';

const list = { type: 'array', items: { type: 'string' } };
const object = { type: 'object' };

describe('readStyledValue', () => {
  it('cuts a list written unexploded at its style’s delimiter, each repeated field too', () => {
    expect(readStyledValue('a,b', list, { style: 'form', explode: false })).toEqual(['a', 'b']);
    expect(readStyledValue('a b', list, { style: 'spaceDelimited', explode: false })).toEqual(['a', 'b']);
    expect(readStyledValue('a|b', list, { style: 'pipeDelimited', explode: false })).toEqual(['a', 'b']);
    expect(readStyledValue('a\tb', list, { style: 'tabDelimited', explode: false })).toEqual(['a', 'b']);
    expect(readStyledValue(['a,b', 'c'], list, { style: 'form', explode: false })).toEqual(['a', 'b', 'c']);
  });

  it('reads a 3.1 list whose type is a list of names as a list', () => {
    expect(readStyledValue('a,b', { type: ['array', 'null'] }, { explode: false })).toEqual(['a', 'b']);
  });

  it('leaves an exploded list, a field without encoding and a value that is no list or object as read', () => {
    expect(readStyledValue('a,b', list, { style: 'form', explode: true })).toBe('a,b');
    expect(readStyledValue('a,b', list, { style: 'form' })).toBe('a,b');
    expect(readStyledValue('a,b', list, undefined)).toBe('a,b');
    expect(readStyledValue('a,b', { type: 'string' }, { style: 'form', explode: false })).toBe('a,b');
    expect(readStyledValue({ R: '1' }, object, { style: 'deepObject', explode: true })).toEqual({ R: '1' });
  });

  it('reads an object written unexploded as keys and values in turn, a last key without a value as empty', () => {
    expect(readStyledValue('R,100,G,200', object, { style: 'form', explode: false })).toEqual({ R: '100', G: '200' });
    expect(readStyledValue('R,100,G', object, { style: 'form', explode: false })).toEqual({ R: '100', G: '' });
    const proto = readStyledValue('__proto__,1', object, { style: 'form', explode: false }) as Record<string, unknown>;
    expect(Object.keys(proto)).toEqual(['__proto__']);
  });
});
