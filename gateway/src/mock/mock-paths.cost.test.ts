import Negotiator from 'negotiator';
import { LINEAR, QUADRATIC, meterAtScales, watch } from '../__tests__/meter-work';
import { chooseMediaType, MAX_ACCEPT_RANGES } from './choose-media-type';
import { createSchemaSampler, SAMPLE_LIMITS } from './create-schema-sampler';
import { readPrefer } from './read-prefer';

/**
 * The cost of -m's request paths, counted (issue 45): negotiation, `Prefer` and sampling do work linear in their
 * input at 1x and 8x, and a schema past the sampler's bound is refused after the same bounded work whatever its
 * size. Each has a quadratic version beside it, which the same meter shows at 40x or more. The time each takes
 * against a gateway is printed by `npm run bench:cost` (gateway/src/bench/cost/main.ts).
 */

const types = (count: number): string[] => Array.from({ length: count }, (_, i) => `application/vnd.t${i}+json`);

describe('-m negotiates, reads Prefer and samples in work linear in the input', () => {
  it('negotiates a long Accept against many declared types in work linear in both (ranges x types is refused)', async () => {
    // 150 ranges against 50 types at 1x, 1,200 against 400 at 8x; most ranges name no declared type, the others
    // name one with a q-value, more than MAX_ACCEPT_RANGES of them.
    const make = (scale: number) => {
      const available = types(50 * scale);
      const ranges = Array.from({ length: 150 * scale }, (_, i) =>
        i % 3 === 0 ? `application/vnd.t${i % available.length}+json;q=0.${(i % 9) + 1}` : `a/x${i}`,
      );
      return { accept: ranges.join(','), available };
    };
    const chosen = chooseMediaType(make(8).accept, make(8).available);
    expect(chosen).toMatch(/^application\/vnd\.t\d+\+json$/);
    const real = await meterAtScales(make, ({ accept, available }) => chooseMediaType(accept, available));
    expect(real.ratio).toBeLessThanOrEqual(LINEAR);
    expect(real.ratio).toBeGreaterThan(4);
    // The negative control: every range weighed against every type (what chooseMediaType bounds to the first
    // MAX_ACCEPT_RANGES that can match), on a tenth of the input.
    const tenth = (scale: number) => {
      const available = types(5 * scale);
      return {
        accept: make(scale)
          .accept.split(',')
          .slice(0, 15 * scale)
          .join(','),
        available,
      };
    };
    const everyRange = await meterAtScales(tenth, ({ accept, available }) =>
      new Negotiator({ headers: { accept } }).mediaType(available),
    );
    expect(everyRange.ratio).toBeGreaterThanOrEqual(QUADRATIC);
    expect(MAX_ACCEPT_RANGES).toBe(32);
  });

  it('reads a long Prefer in one pass (a pass over the header for each preference is refused)', async () => {
    const make = (scale: number) => [...Array.from({ length: 200 * scale }, (_, i) => `x${i}="   a"`), 'code=201'];
    expect(readPrefer(make(8).join(', '))).toEqual({ code: 201 });
    const real = await meterAtScales(
      (scale) => make(scale).join(', '),
      (header) => readPrefer(header),
    );
    expect(real.ratio).toBeLessThanOrEqual(LINEAR);
    expect(real.ratio).toBeGreaterThan(4);
    // The negative control: each preference looked for in the whole header again.
    const quadratic = (header: string) =>
      header.split(',').filter((part) => header.indexOf(part.trim()) >= 0 && part.includes('='));
    const control = await meterAtScales((scale) => make(scale).join(', '), quadratic);
    expect(control.ratio).toBeGreaterThanOrEqual(QUADRATIC);
  });

  const item = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
    },
  };
  /** The sampler's reads of the schema, and the string and JSON work of the sample, at 1x and 8x. */
  const sampled = (schema: (scale: number) => object) =>
    meterAtScales(
      (scale) => watch(schema(scale)),
      (watchedSchema) => createSchemaSampler().sample(watchedSchema, undefined),
    );

  it.each<[string, (scale: number) => object, (scale: number) => unknown]>([
    [
      'arrays of objects (minItems)',
      (scale) => ({ type: 'array', minItems: 200 * scale, items: item }),
      (scale) => Array.from({ length: 200 * scale }, () => ({ id: 0, name: 'string', tags: ['string'] })),
    ],
    [
      'long strings (minLength)',
      (scale) => ({ type: 'string', minLength: 100_000 * scale }),
      (scale) => 'string'.repeat(20_000 * scale).slice(0, 100_000 * scale),
    ],
    [
      'nested arrays (30x30 and 85x85)',
      (scale) => {
        const side = scale === 1 ? 30 : 85;
        return { type: 'array', minItems: side, items: { type: 'array', minItems: side, items: { type: 'integer' } } };
      },
      (scale) => {
        const side = scale === 1 ? 30 : 85;
        return Array.from({ length: side }, () => Array.from({ length: side }, () => 0));
      },
    ],
  ])('samples %s in work linear in the answer', async (_name, schema, expected) => {
    expect(createSchemaSampler().sample(schema(8), undefined)).toEqual({
      sample: { json: JSON.stringify(expected(8)), value: expected(8) },
    });
    const real = await sampled(schema);
    expect(real.ratio).toBeLessThanOrEqual(LINEAR);
    expect(real.ratio).toBeGreaterThan(4);
  });

  it('refuses a schema past its bound after the same bounded work at 1x and 8x, never building it', async () => {
    const huge = (scale: number) => ({
      type: 'array',
      minItems: 1_000_000 * scale,
      items: { type: 'array', minItems: 1000, items: item },
    });
    expect(createSchemaSampler().sample(huge(8), undefined)).toEqual({
      tooLarge: `more than ${SAMPLE_LIMITS.maxReads} steps to build`,
    });
    const real = await sampled(huge);
    expect(real.large).toBe(real.small);
    expect(real.large).toBeLessThan(1000);
  });

  it('the meter tells a quadratic sampler from these: one that reads every item built so far for each new item', async () => {
    // The negative control of the sampling tests: the same schemas and meter, a sampler whose array grows by copying.
    const quadraticSample = (schema: { minItems: number; items: unknown }) => {
      let built: unknown[] = [];
      for (let i = 0; i < schema.minItems; i += 1) built = built.concat([schema.items]);
      return built.length;
    };
    const control = await meterAtScales(
      (scale) => watch({ type: 'array', minItems: 200 * scale, items: item }),
      quadraticSample,
    );
    expect(control.ratio).toBeGreaterThanOrEqual(QUADRATIC);
  });
});
