import { createResourceState } from './create-resource-state';

describe('createResourceState', () => {
  it('answers 507 STATE_FULL past its item bound, and takes items again once one is removed', async () => {
    const state = createResourceState({ name: '/things', seed: async () => [{ id: 1 }, { id: 2 }], maxItems: 3 });
    await state.add({ name: 'third' });
    await expect(state.add({ name: 'fourth' })).rejects.toMatchObject({ code: 'STATE_FULL' });
    await state.remove('1');
    await expect(state.add({ name: 'fourth' })).resolves.toMatchObject({ id: 4 });
  });

  it('answers 507 STATE_FULL past its byte bound, counting a replaced item once', async () => {
    const state = createResourceState({ name: '/things', seed: async () => [], maxBytes: 200 });
    const { id } = await state.add({ text: 'x'.repeat(100) });
    await state.replace(String(id), { text: 'y'.repeat(150) });
    await expect(state.add({ text: 'z'.repeat(60) })).rejects.toMatchObject({ code: 'STATE_FULL' });
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
