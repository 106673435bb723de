import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { findDuplicateItems, useLinearUniqueItems } from './use-linear-unique-items';

describe('findDuplicateItems', () => {
  it.each<[string, unknown[], [number, number] | undefined]>([
    [
      'objects whose members come in another order',
      [
        { a: 1, b: [1, { c: 2 }] },
        { b: [1, { c: 2 }], a: 1 },
      ],
      [0, 1],
    ],
    ['numbers that JSON writes alike', [0, 1, 1.0], [1, 2]],
    ['zero and minus zero', [-0, 0], [0, 1]],
    [
      'lists in order',
      [
        [1, 2],
        [2, 1],
        [1, 2],
      ],
      [0, 2],
    ],
    ['a text and the number it spells', ['1', 1], undefined],
    ['a text that reads like an object and the object', ['{}', {}], undefined],
    ['null, false, 0 and the empty text', [null, false, 0, ''], undefined],
    [
      'objects with number-like keys in any order',
      [{ 10: 1, 2: 1, a: 1, b: 1 }, JSON.parse('{"b":1,"a":1,"2":1,"10":1}')],
      [0, 1],
    ],
    [
      'objects whose __proto__ members differ',
      [JSON.parse('{"__proto__":{"a":1},"z":1}'), JSON.parse('{"z":1,"__proto__":{"a":2}}')],
      undefined,
    ],
    [
      'objects whose __proto__ members are equal',
      [JSON.parse('{"z":1,"__proto__":{"a":1}}'), JSON.parse('{"__proto__":{"a":1},"z":1}')],
      [0, 1],
    ],
    ['nested objects that differ deep inside', [{ a: { b: { c: 1 } } }, { a: { b: { c: 2 } } }], undefined],
  ])('judges %s as JSON Schema does', (_name, items, expected) => {
    expect(findDuplicateItems(items)).toEqual(expected);
  });

  it('checks 100,000 distinct objects in time linear in them (pairs would take minutes)', () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({ sku: `s${i}`, n: i }));
    const started = performance.now();
    expect(findDuplicateItems(items)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('useLinearUniqueItems', () => {
  it.each([
    ['draft-07', () => new Ajv({ allErrors: true })],
    ['2020-12', () => new Ajv2020({ allErrors: true })],
  ])('gives ajv (%s) the error ajv gives, at the same place', (_draft, make) => {
    const schema = { type: 'object', properties: { lines: { type: 'array', uniqueItems: true } } };
    const ours = useLinearUniqueItems(make()).compile(schema);
    const theirs = make().compile(schema);
    const data = { lines: [{ a: 1 }, { b: 2 }, { a: 1 }] };
    expect(ours(data)).toBe(false);
    expect(theirs(data)).toBe(false);
    expect(ours.errors).toEqual(theirs.errors);
    expect(ours({ lines: [{ a: 1 }, { a: 2 }] })).toBe(true);
    expect(useLinearUniqueItems(make()).compile({ type: 'array', uniqueItems: false })([1, 1])).toBe(true);
  });
});
