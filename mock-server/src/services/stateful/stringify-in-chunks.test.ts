import { stringifyInChunks } from './stringify-in-chunks';

describe('stringifyInChunks', () => {
  it('writes a list as JSON.stringify does', async () => {
    const items = [{ id: 1, name: 'Ada "L"' }, null, 'text', [1, { b: 2 }], { id: '\u2028' }];
    expect(await stringifyInChunks(items)).toBe(JSON.stringify(items));
    expect(await stringifyInChunks([])).toBe('[]');
  });

  it('lets other work run while it writes a list of some megabytes', async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i, text: 'x'.repeat(200) }));
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    const text = await stringifyInChunks(items);
    clearInterval(counting);
    expect(text.length).toBeGreaterThan(4_000_000);
    expect(turns).toBeGreaterThan(5);
  });
});
