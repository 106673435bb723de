import fc from 'fast-check';
import { findAmbiguousJson } from './find-ambiguous-json';

describe('findAmbiguousJson', () => {
  it.each([
    ['{"a":1,"a":"x"}', '/a'],
    ['{"a":1,"\\u0061":2}', '/a'],
    ['{"items":[{"id":1},{"id":2,"n":{},"id":3}]}', '/items/1/id'],
    [`{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"k7":0}`, '/k7'],
    ['{"a/b":{"~":1,"~":2}}', '/a~1b/~0'],
  ])('finds the repeated name in %s', (text, pointer) => {
    expect(findAmbiguousJson(text)).toEqual({ kind: 'duplicate-name', pointer });
  });

  it.each([
    ['[1e999]', 'non-finite-number', '/0'],
    ['{"n":-1E400}', 'non-finite-number', '/n'],
    ['{"n":9007199254740993}', 'inexact-integer', '/n'],
    ['{"n":-9007199254740993}', 'inexact-integer', '/n'],
    ['{"n":9.007199254740993e15}', 'inexact-integer', '/n'],
    ['[0,1.0000000000000001]', 'inexact-integer', '/1'],
    ['[1e-400]', 'inexact-integer', '/0'],
    ['[18446744073709551615]', 'inexact-integer', '/0'],
  ])('finds the number %s reads otherwise than it says', (text, kind, pointer) => {
    expect(findAmbiguousJson(text)).toEqual({ kind, pointer });
  });

  it.each([
    '{"a":{"a":1},"b":[{"a":2},{"a":3}],"c":"a"}',
    '{"x":"\\"a\\":1,\\"a\\":2"}',
    '[-0,-0.0,0e5000,1.5,1e300,-1.7976931348623157e308,9007199254740992,100000000000000000,1.0e2]',
    '{"big":36893488147419103232,"id":4611686018427387904}',
    '{}',
    '"1e999 in a string"',
  ])('finds nothing ambiguous in %s', (text) => {
    expect(findAmbiguousJson(text)).toBeUndefined();
  });

  it('finds nothing ambiguous in what JSON.stringify writes of values of exact numbers', () => {
    const exact = fc.oneof(
      fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
      fc
        .double({ noDefaultInfinity: true, noNaN: true })
        .filter((n) => !Number.isInteger(n) || Math.abs(n) > 2 ** 64 || Number.isSafeInteger(n)),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        exact,
        fc.string(),
        fc.constantFrom(true, false, null),
        fc.array(tie('node')),
        fc.dictionary(fc.string(), tie('node')),
      ),
    })).node;
    fc.assert(fc.property(value, (v) => findAmbiguousJson(JSON.stringify(v)) === undefined));
  });

  it('finds a name written twice, wherever the second one lands, in any JSON object', () => {
    const member = fc.tuple(fc.string(), fc.jsonValue());
    fc.assert(
      fc.property(fc.uniqueArray(member, { selector: ([name]) => name, minLength: 1 }), fc.nat(), (members, at) => {
        const [name, value] = members[at % members.length];
        const text = `{${[...members, [name, value] as const].map(([n, v]) => `${JSON.stringify(n)}:${JSON.stringify(v)}`).join(',')}}`;
        expect(findAmbiguousJson(text)).toEqual({
          kind: 'duplicate-name',
          pointer: `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        });
      }),
    );
  });
});
