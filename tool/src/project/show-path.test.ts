import { join, resolve } from 'node:path';
import { toolTemplatesDir } from './paths';
import { showPath } from './show-path';

describe('showPath()', () => {
  // Not /work: the checkout being tested may live there, and its templates would be inside the base folder.
  const base = resolve('/home/user/project');

  it.each([
    [join(base, 'services', 'orders', 'service.yml'), join('services', 'orders', 'service.yml')],
    [join(base, 'docs'), 'docs'],
    [base, '.'],
    ['config.yml', 'config.yml'],
  ])('names %j inside the base folder relative to it: %j', (path, shown) => {
    expect(showPath(base, path)).toBe(shown);
  });

  it("names rest-tool's own templates as such, not by where the tool is installed", () => {
    expect(showPath(base, join(toolTemplatesDir, 'services', 'RESOURCE'))).toBe(
      `rest-tool's ${join('templates', 'services', 'RESOURCE')}`,
    );
  });

  it('leaves a path outside the base folder as it is, and a folder that only starts alike is outside', () => {
    expect(showPath(base, resolve('/elsewhere/x.json'))).toBe(resolve('/elsewhere/x.json'));
    expect(showPath(base, resolve('/home/user/project2/config.yml'))).toBe(resolve('/home/user/project2/config.yml'));
  });
});
