import Ajv, { type ErrorObject } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { createSeededRandom } from '@restbus/infra/testing';
import { addLinearUniqueItems } from './add-linear-unique-items';
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

/** `length` distinct objects whose member reads (and key listings) are counted, and the count so far. */
function countedItems(length: number): { items: object[]; reads: () => number } {
  let reads = 0;
  const counting: ProxyHandler<object> = {
    get(target, key, receiver) {
      reads += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
    ownKeys(target) {
      reads += 1;
      return Reflect.ownKeys(target);
    },
  };
  const items = Array.from({ length }, (_, i) => new Proxy({ id: i, name: `n${i}` }, counting));
  return { items, reads: () => reads };
}

/** The reads a check of `base` distinct objects makes, and of 8x as many; whether they grew as the list did. */
function readsAtScales(
  check: (data: unknown) => boolean,
  base = 50,
): { small: number; large: number; linear: boolean } {
  const [small, large] = [base, 8 * base].map((length) => {
    const { items, reads } = countedItems(length);
    expect(check(items)).toBe(true);
    return reads();
  });
  // Linear: 8x the reads, give or take a few; a pairwise check reads some 64x.
  return { small, large, linear: large <= 8 * small + 16 };
}

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

  it('tells 8,000 distinct objects from their copies, naming the copy', () => {
    const list = Array.from({ length: 8000 }, (_, i) => ({ id: i, name: `n${i}`, tags: ['a', 'b'] }));
    const validate = ours.compile(SCHEMAS[1]);
    expect(validate(list)).toBe(true);
    expect(validate([...list, { tags: ['a', 'b'], name: 'n7', id: 7 }])).toBe(false);
    expect(validate.errors?.[0].message).toBe('must NOT have duplicate items (items ## 7 and 8000 are identical)');
  });

  it("reads each item a fixed number of times, counted: 8x the items 8x the reads, where ajv's pairwise check reads 64x", () => {
    for (const schema of [SCHEMAS[0], SCHEMAS[1]]) {
      const linear = readsAtScales(ours.compile(schema));
      expect(linear).toMatchObject({ linear: true });
      // Every item is read: a check that skipped them would count none at either size.
      expect(linear.small).toBeGreaterThanOrEqual(50);
    }
    // The negative control: ajv's own keyword compares every pair of objects, and the same count says so.
    const pairwise = readsAtScales(theirs.compile(SCHEMAS[1]));
    expect(pairwise).toMatchObject({ linear: false });
    expect(pairwise.large).toBeGreaterThan(40 * pairwise.small);
  });
});

describe('toCanonicalJson', () => {
  it('writes equal values alike whatever their key order, and reads 100,000 levels without recursing', () => {
    expect(toCanonicalJson({ b: [1, { y: -0, x: 'é"' }], a: null })).toBe('{"a":null,"b":[1,{"x":"é\\"","y":0}]}');
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(toCanonicalJson(deep)).toHaveLength(200_000);
  });
});

describe('the linear uniqueItems keyword on values that look alike', () => {
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
  ])('judges %s as JSON Schema does, and as ajv does', (_name, items, expected) => {
    const schema = { type: 'array', uniqueItems: true };
    const check = addLinearUniqueItems(new Ajv(options)).compile(schema);
    expect(check(items)).toBe(expected === undefined);
    expect(check(items)).toBe(new Ajv(options).compile(schema)(items));
  });

  it('gives a 2020-12 ajv the error ajv gives, at the same place', () => {
    const schema = { type: 'object', properties: { lines: { type: 'array', uniqueItems: true } } };
    const linear = addLinearUniqueItems(new Ajv2020(options)).compile(schema);
    const own = new Ajv2020(options).compile(schema);
    const data = { lines: [{ a: 1 }, { b: 2 }, { a: 1 }] };
    expect([linear(data), own(data)]).toEqual([false, false]);
    expect(linear.errors).toEqual(own.errors);
  });
});
