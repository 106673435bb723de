import { createResourceState } from './create-resource-state';
import { createStateBudget } from './create-state-budget';
import { estimateMemory } from './estimate-memory';

/**
 * An item of `members` members whose reads are counted (each member read, each member a key listing names): the
 * work done on an item, counted rather than timed. Past about a thousand names V8 makes each member of an object
 * some 20x dearer to reach, so the time of linear work on a wide item grows faster than its size; its reads do not.
 */
function countedItem(members: number): { item: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const target = Object.fromEntries(Array.from({ length: members }, (_, i) => [`sku-${i}`, i]));
  const item = new Proxy(target, {
    get(object, key, receiver) {
      reads += 1;
      return Reflect.get(object, key, receiver) as unknown;
    },
    ownKeys(object) {
      reads += Object.keys(object).length;
      return Reflect.ownKeys(object);
    },
  });
  return { item, reads: () => reads };
}

/** The reads `work` makes of an item of `base` members and of one of 8x as many, and whether it grew as the item did. */
async function readsAtScales(
  work: (item: Record<string, unknown>) => unknown,
  base = 1000,
): Promise<{ small: number; large: number; linear: boolean }> {
  const reads: number[] = [];
  for (const members of [base, 8 * base]) {
    const counted = countedItem(members);
    await work(counted.item);
    reads.push(counted.reads());
  }
  const [small, large] = reads;
  // 8x the members: 8x the reads, and a few reads of its own (the id); quadratic work would read 64x.
  return { small, large, linear: large <= 8 * small + 16 };
}

/** What `count` counts at `base` and at 8x `base`. */
async function countAtScales(
  count: (units: number) => Promise<number>,
  base: number,
): Promise<{ small: number; large: number }> {
  return { small: await count(base), large: await count(8 * base) };
}

/**
 * The steps taken through any Map's values, keys or entries while `work` runs (the work of a pass over a collection),
 * counted by the Map iterators' `next`.
 */
async function mapIterationSteps(work: () => unknown): Promise<number> {
  const iterator = Object.getPrototypeOf(new Map().values()) as { next: () => unknown };
  const next = iterator.next;
  let steps = 0;
  iterator.next = function (this: unknown) {
    steps += 1;
    return next.call(this);
  };
  try {
    await work();
  } finally {
    iterator.next = next;
  }
  return steps;
}

describe('createResourceState', () => {
  it('stores and replaces an item in work linear in its members, counted in reads (a quadratic walk is refused)', async () => {
    const state = createResourceState({ name: '/notes', seed: async () => [{ id: 1 }], maxBytes: 64 * 1024 * 1024 });
    const replacing = await readsAtScales((item) => state.replace('1', item));
    expect(replacing).toMatchObject({ linear: true });
    expect(replacing.small).toBeGreaterThanOrEqual(1000);
    expect(await readsAtScales((item) => estimateMemory(item))).toMatchObject({ linear: true });
    // The negative control: a walk that lists the names again for each member is read 64x at 8x, and refused.
    const quadratic = (item: Record<string, unknown>): number =>
      Object.keys(item).reduce((sum, key) => sum + Object.keys(item).length + Number(item[key]), 0);
    expect(await readsAtScales(quadratic, 100)).toMatchObject({ linear: false });
  });

  it('answers 507 STATE_FULL past its item bound, and takes items again once one is removed', async () => {
    const state = createResourceState({ name: '/things', seed: async () => [{ id: 1 }, { id: 2 }], maxItems: 3 });
    await state.add({ name: 'third' });
    await expect(state.add({ name: 'fourth' })).rejects.toMatchObject({ code: 'STATE_FULL' });
    await state.remove('1');
    await expect(state.add({ name: 'fourth' })).resolves.toMatchObject({ id: 4 });
  });

  it('answers 507 STATE_FULL past its memory bound, counting a replaced item once', async () => {
    const state = createResourceState({ name: '/things', seed: async () => [], maxBytes: 1000 });
    const { id } = await state.add({ text: 'x'.repeat(100) });
    await state.replace(String(id), { text: 'y'.repeat(150) });
    await expect(state.add({ text: 'z'.repeat(60) })).rejects.toMatchObject({ code: 'STATE_FULL' });
  });

  it('counts an item by the memory it holds, not by its JSON text: empty objects fill a bound their text would not', async () => {
    const state = createResourceState({ name: '/things', seed: async () => [], maxBytes: 1024 * 1024 });
    const junk = Array.from({ length: 20_000 }, () => ({}));
    expect(JSON.stringify({ junk }).length).toBeLessThan(64 * 1024);
    await expect(state.add({ junk })).rejects.toMatchObject({
      code: 'STATE_FULL',
      message: '/things holds its maximum of 1 MiB of memory',
    });
  });

  it('counts its items in its account, and gives their memory back when they are removed or the state is reset', async () => {
    const budget = createStateBudget({ maxBytes: 1024 * 1024 });
    const state = createResourceState({ name: '/things', seed: async () => [{ id: 1 }], account: budget.shared });
    await state.list();
    const seeded = budget.usedBytes;
    expect(seeded).toBeGreaterThan(0);
    await state.add({ text: 'x'.repeat(1000) });
    expect(budget.usedBytes).toBeGreaterThan(seeded + 1000);
    await state.remove('2');
    expect(budget.usedBytes).toBe(seeded);
    state.reset();
    expect(budget.usedBytes).toBe(0);
  });

  it('assigns the next whole number after the largest id, also once the largest was removed', async () => {
    const state = createResourceState({ name: '/things', seed: async () => [{ id: 1 }, { id: 7 }] });
    expect((await state.add({})).id).toBe(8);
    await state.remove('8');
    await state.remove('7');
    expect((await state.add({})).id).toBe(2);
  });

  it('seeds items without ids in work linear in the seed: a new id costs no pass over the collection (one that does is counted 64x)', async () => {
    const steps = await countAtScales(async (count) => {
      const state = createResourceState({
        name: '/things',
        seed: async () => Array.from({ length: count }, () => ({ name: 'x' })),
      });
      const counted = await mapIterationSteps(() => state.get('1'));
      expect(await state.get(String(count))).toEqual({ name: 'x', id: count });
      return counted;
    }, 1250);
    expect(steps.large).toBeLessThanOrEqual(8 * steps.small + 16);
    // The negative control: ids found by a pass over the items stored so far, as the state did once.
    const quadratic = await countAtScales(
      (count) =>
        mapIterationSteps(() => {
          const stored = new Map<string, { id: number }>();
          for (let i = 0; i < count; i++) {
            const id = [...stored.values()].reduce((largest, item) => Math.max(largest, item.id), 0) + 1;
            stored.set(String(id), { id });
          }
        }),
      100,
    );
    expect(quadratic.large).toBeGreaterThan(32 * quadratic.small);
    const items = await createResourceState({
      name: '/things',
      seed: async () => Array.from({ length: 10_000 }, () => ({ name: 'x' })),
    }).list();
    expect(items.at(-1)?.id).toBe(10_000);
  });

  it('gives a UUID as the new id once an id is not a whole number', async () => {
    const state = createResourceState({ name: '/things', seed: async () => [{ id: 'a' }] });
    expect((await state.add({})).id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('cuts a seed larger than its bounds instead of failing every request', async () => {
    const seed = Array.from({ length: 5 }, (_, i) => ({ id: i + 1 }));
    const state = createResourceState({ name: '/things', seed: async () => seed, maxItems: 3 });
    expect((await state.list()).map((item) => item.id)).toEqual([1, 2, 3]);
  });

  it('reads the seed again after a reset, and again after a seed that failed', async () => {
    let reads = 0;
    const state = createResourceState({
      name: '/things',
      seed: async () => {
        reads++;
        if (reads === 1) throw new Error('not yet');
        return [{ id: 1 }];
      },
    });
    await expect(state.list()).rejects.toThrow('not yet');
    await state.remove('1').catch(() => undefined);
    expect(await state.list()).toEqual([]);
    state.reset();
    expect(await state.list()).toEqual([{ id: 1 }]);
    expect(reads).toBe(3);
  });
});
