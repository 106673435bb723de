import { PathTree } from './path-tree';

describe('PathTree', () => {
  it('answers for a 10 000-character segment against parameters separated by the character it is made of', () => {
    // A regular expression per mixed segment backtracked polynomially here: this call did not finish.
    const tree = new PathTree<string>();
    tree.upsert('/v/{a}-{b}-{c}-{d}.json', () => 'versions');
    const dashes = '-'.repeat(10_000);
    expect(tree.match(['v', dashes])).toBeUndefined();
    expect(tree.match(['v', `${dashes}.JSON`])).toEqual({
      value: 'versions',
      values: ['-', '-', '-', '-'.repeat(9_994)],
    });
  });

  it('gives the first parameters of a mixed segment the least they can take, case-insensitively', () => {
    const tree = new PathTree<string>();
    tree.upsert('/files/{name}.{ext}', () => 'file');
    tree.upsert('/v{major}-{minor}/x', () => 'range');
    tree.upsert('/pair/{a}{b}', () => 'pair');
    expect(tree.match(['FILES', 'a.b.c'])?.values).toEqual(['a', 'b.c']);
    expect(tree.match(['files', '.csv'])).toBeUndefined();
    expect(tree.match(['files', 'report.'])).toBeUndefined();
    expect(tree.match(['V1-2-3', 'X'])?.values).toEqual(['1', '2-3']);
    expect(tree.match(['pair', 'xyz'])?.values).toEqual(['x', 'yz']);
    expect(tree.match(['pair', 'x'])).toBeUndefined();
    expect(tree.match(['files', 'a/b.c'])).toBeUndefined();
  });
});
