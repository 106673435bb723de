import Ajv, { type ErrorObject } from 'ajv';
import { createSeededRandom } from '@restbus/infra/testing';
import { addLinearUniqueItems } from './add-linear-unique-items';
import { measureJsonDepth } from './measure-json-depth';
import { toCanonicalJson } from './to-canonical-json';

const options = { allErrors: true, strict: false } as const;
const theirs = new Ajv(options);
const ours = addLinearUniqueItems(new Ajv(options));

const errorsOf = (ajv: Ajv, schema: object, data: unknown): Array<Partial<ErrorObject>> | undefined => {
  const validate = ajv.compile(schema);
  validate(data);
  return validate.errors?.map(({ keyword, instancePath, message, params }) => ({
    keyword,
    instancePath,
    message,
    params,
  }));
};

const SCHEMAS = [
  { type: 'array', uniqueItems: true },
  { type: 'array', uniqueItems: true, items: { type: 'object' } },
  { type: 'array', uniqueItems: true, items: { type: 'string' } },
  { type: 'array', uniqueItems: true, items: { type: ['integer', 'string', 'null'] } },
  { type: 'array', uniqueItems: true, items: { type: 'integer', nullable: true } },
  { type: 'object', properties: { list: { type: 'array', uniqueItems: true, items: { type: 'array' } } } },
  { type: 'array', uniqueItems: false },
];

describe('the linear uniqueItems keyword', () => {
  it("finds the same duplicates as ajv's own, with the same message, params and location", () => {
    const random = createSeededRandom(29);
    const atoms = [1, 2, '1', '2', 'a', true, false, null, 1.5, -0, 0];
    const value = (depth: number): unknown => {
      const kind = random.below(depth > 2 ? 1 : 4);
      if (kind === 0) return random.pick(atoms);
      if (kind === 1) return Array.from({ length: random.below(3) }, () => value(depth + 1));
      const keys = ['a', 'b', 'c'].filter(() => random.below(2) === 0);
      // Keys in either order: equal objects whatever their key order.
      return Object.fromEntries((random.below(2) === 0 ? keys : keys.reverse()).map((key) => [key, value(depth + 1)]));
    };
    let compared = 0;
    for (let round = 0; round < 400; round += 1) {
      const list = Array.from({ length: random.below(8) }, () => value(0));
      for (const schema of SCHEMAS) {
        const data = schema.type === 'object' ? { list } : list;
        expect(errorsOf(ours, schema, data)).toEqual(errorsOf(theirs, schema, data));
        compared += 1;
      }
    }
    expect(compared).toBe(400 * SCHEMAS.length);
  });

  it('tells 8,000 distinct objects from their copies in well under a second', () => {
    const list = Array.from({ length: 8000 }, (_, i) => ({ id: i, name: `n${i}`, tags: ['a', 'b'] }));
    const validate = ours.compile(SCHEMAS[1]);
    const started = performance.now();
    expect(validate(list)).toBe(true);
    expect(validate([...list, { tags: ['a', 'b'], name: 'n7', id: 7 }])).toBe(false);
    expect(validate.errors?.[0].message).toBe('must NOT have duplicate items (items ## 7 and 8000 are identical)');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('toCanonicalJson and measureJsonDepth', () => {
  it('writes equal values alike whatever their key order, and reads 100,000 levels without recursing', () => {
    expect(toCanonicalJson({ b: [1, { y: -0, x: 'é"' }], a: null })).toBe('{"a":null,"b":[1,{"x":"é\\"","y":0}]}');
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(toCanonicalJson(deep)).toHaveLength(200_000);
  });

  it('counts nesting outside strings and stops past its limit', () => {
    expect(measureJsonDepth('{"a":[1,{"b":"[[[\\"[["}]}', 10)).toBe(3);
    expect(measureJsonDepth('[[[[[[', 3)).toBe(4);
    expect(measureJsonDepth('"unterminated [[[', 3)).toBe(0);
  });
});
