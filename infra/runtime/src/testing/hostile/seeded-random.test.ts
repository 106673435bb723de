import { createSeededRandom } from './seeded-random';

describe('createSeededRandom', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, createSeededRandom(seed).next);
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('keeps below(n) within 0..n-1 and reaches both ends', () => {
    const random = createSeededRandom(7);
    const seen = new Set(Array.from({ length: 500 }, () => random.below(4)));
    expect([...seen].sort()).toEqual([0, 1, 2, 3]);
  });

  it('draws text of the asked length from the given alphabet', () => {
    const text = createSeededRandom(1).text(50, 'xy');
    expect(text).toHaveLength(50);
    expect(text).toMatch(/^[xy]+$/);
  });
});
