import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { createSchemaCompilers } from './create-schema-compilers';
import { findSchemaErrors } from './find-schema-errors';
import { linearPatternEngine } from './linear-pattern-engine';

const withFormats = (ajv: Parameters<typeof addFormats>[0]): unknown => addFormats(ajv, { keywords: false });

/** The member reads (and key listings) a check of `base` distinct objects makes, and of 8x as many. */
function readsAtScales(
  check: (data: unknown) => boolean,
  base = 50,
): { small: number; large: number; linear: boolean } {
  const [small, large] = [base, 8 * base].map((length) => {
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
    expect(check(Array.from({ length }, (_, i) => new Proxy({ id: i }, counting)))).toBe(true);
    return reads;
  });
  // Linear: 8x the reads, give or take a few; a pairwise check reads some 64x.
  return { small, large, linear: large <= 8 * small + 16 };
}

describe('createSchemaCompilers', () => {
  it('reads 2.0 and 3.0 schemas as draft-07 with nullable, and 3.1 schemas as 2020-12', () => {
    const nullable = { type: 'string', nullable: true };
    expect(createSchemaCompilers('3.0').all.compile(nullable)(null)).toBe(true);
    expect(createSchemaCompilers('2.0').all.compile(nullable)(null)).toBe(true);
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }], items: false };
    expect(createSchemaCompilers('3.1').all.compile(tuple)(['a', 'b'])).toBe(false);
    expect(createSchemaCompilers('2020-12').all.compile(tuple)(['a'])).toBe(true);
    // draft-07 knows no prefixItems: its `items: false` refuses every item.
    expect(createSchemaCompilers('draft-07').all.compile(tuple)(['a'])).toBe(false);
  });

  it('coerces text to the types a schema asks for only when told to', () => {
    const schema = { type: 'object', properties: { limit: { type: 'integer' }, ids: { type: 'array' } } };
    const coerced = createSchemaCompilers('3.0', { coerceTypes: 'array' }).all.compile(schema);
    const value = { limit: '7', ids: 'a' };
    expect([coerced(value), value]).toEqual([true, { limit: 7, ids: ['a'] }]);
    expect(createSchemaCompilers('3.0').all.compile(schema)({ limit: '7' })).toBe(false);
  });

  it('checks JSON Schema and OpenAPI formats only when given the formats plugin', () => {
    const schema = { type: 'object', properties: { at: { type: 'string', format: 'date' }, n: { format: 'int32' } } };
    const checked = createSchemaCompilers('3.0', { addFormats: withFormats }).all.compile(schema);
    expect(checked({ at: 'tomorrow' })).toBe(false);
    expect(checked({ n: 2 ** 31 })).toBe(false);
    expect(checked({ at: '2026-11-26', n: 7 })).toBe(true);
    expect(checked({ at: '2026-11-26', unknown: { format: 'whatever' } })).toBe(true);
    expect(createSchemaCompilers('3.0').all.compile(schema)({ at: 'tomorrow', n: 2 ** 31 })).toBe(true);
  });

  it('lists every error with `all` and stops at the first with `first`', () => {
    const pair = createSchemaCompilers('3.1').compilePair({ type: 'array', items: { type: 'string' } });
    expect(findSchemaErrors(pair, [1, 2, 3], 10).errors).toHaveLength(3);
    expect(findSchemaErrors(pair, [1, 2, 3], 1_000_000).errors).toHaveLength(1);
  });

  it('checks a catastrophic pattern with the linear-time engine, and uniqueItems of 20,000 objects', () => {
    const { all } = createSchemaCompilers('3.0');
    const pattern = all.compile({ type: 'string', pattern: '^(a+)+$' });
    expect(all.opts.code.regExp).toBe(linearPatternEngine);
    expect(pattern('a'.repeat(20))).toBe(true);
    const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i }));
    const unique = all.compile({ type: 'array', uniqueItems: true });
    expect(unique(items)).toBe(true);
    expect(unique([...items, { id: 5 }])).toBe(false);
    expect(unique.errors?.[0].message).toBe('must NOT have duplicate items (items ## 5 and 20000 are identical)');
  });

  it("checks uniqueItems of objects in reads linear in the list, counted, where a plain ajv's reads grow 64x", () => {
    const schema = { type: 'array', uniqueItems: true };
    // Both kinds of ajv (draft-07, 2020-12), listing every error and stopping at the first.
    for (const ajv of [createSchemaCompilers('3.0').all, createSchemaCompilers('3.1').first]) {
      const counted = readsAtScales(ajv.compile(schema));
      expect(counted).toMatchObject({ linear: true });
      expect(counted.small).toBeGreaterThanOrEqual(50);
    }
    // The negative control: ajv as it comes compares every pair of objects, and the same count says so.
    const pairwise = readsAtScales(new Ajv({ strict: false }).compile(schema));
    expect(pairwise).toMatchObject({ linear: false });
    expect(pairwise.large).toBeGreaterThan(40 * pairwise.small);
  });

  it('resolves $refs against the schemas it is given by id', () => {
    const root = {
      components: {
        schemas: { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } },
      },
    };
    const { all } = createSchemaCompilers('3.0', { schemas: { 'api.json': root } });
    const validate = all.compile({ $ref: 'api.json#/components/schemas/Node' });
    expect(validate({ next: { next: {} } })).toBe(true);
    expect(validate({ next: { next: 7 } })).toBe(false);
  });

  it('fails on no unknown keyword and logs nothing', () => {
    const warn = jest.spyOn(console, 'warn');
    const { all } = createSchemaCompilers('3.0', { addFormats: withFormats });
    expect(all.compile({ type: 'string', 'x-extra': 1, discriminator: {}, format: 'made-up' })('a')).toBe(true);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });
});
