import { isRestbusError } from '@restbus/infra';
import { createSeededRandom } from '@restbus/infra/testing';
import { rm } from 'node:fs/promises';
import { sampleFiles, serveProject, writeProject } from '../__tests__/sample-project';
import { checkProject } from '../server/check-project';
import { compileUriTemplate, findUriTemplateProblem } from '@restbus/project-format';

describe('compileUriTemplate', () => {
  it('refuses a template with two parameters that have nothing between them', () => {
    let thrown: unknown;
    try {
      compileUriTemplate('/rest', '/{a}{b}{c}{d}{e}{f}');
    } catch (err) {
      thrown = err;
    }
    expect(isRestbusError(thrown) && thrown.code).toBe('PROJECT_INVALID');
    expect((thrown as Error).message).toBe(
      'uriTemplate /{a}{b}{c}{d}{e}{f}: the parameters {a} and {b} have nothing between them, so no path can say ' +
        'where one ends; put a literal between them, e.g. {a}-{b}',
    );
  });

  it('names the problem for the project checker, and none for a valid template', () => {
    expect(findUriTemplateProblem('/users/{id}{format}')).toMatch(/\{id\} and \{format\} have nothing between them/);
    expect(findUriTemplateProblem('/users/{id}.{format}')).toBeUndefined();
  });

  it('takes one segment per parameter, case-insensitive, with an optional trailing slash', () => {
    const matcher = compileUriTemplate('/rest', '/users/{id}');
    expect(matcher.match('/rest/users/42')).toEqual({ id: '42' });
    expect(matcher.match('/REST/Users/42/')).toEqual({ id: '42' });
    expect(matcher.match('/rest/users/42//')).toBeUndefined();
    expect(matcher.match('/rest/users/')).toBeUndefined();
    expect(matcher.match('/rest/users/4/2')).toBeUndefined();
    expect(matcher.match('/rest/users/a%2Fb')).toEqual({ id: 'a/b' });
    expect(matcher.match('/rest/users/%zz')).toEqual({ id: '%zz' });
  });

  it('matches literals and parameters within one segment as the former regular expression did', () => {
    const file = compileUriTemplate('', '/files/{name}.{ext}');
    expect(file.match('/files/report.csv')).toEqual({ name: 'report', ext: 'csv' });
    // The first parameter takes as much as it can, as a greedy ([^/]+) did.
    expect(file.match('/files/a.b.c')).toEqual({ name: 'a.b', ext: 'c' });
    expect(file.match('/files/.csv')).toBeUndefined();
    expect(file.match('/files/report.')).toBeUndefined();
    const range = compileUriTemplate('', '/v{major}-{minor}-{patch}/x');
    expect(range.match('/V1-2-3-4/X')).toEqual({ major: '1-2', minor: '3', patch: '4' });
    expect(range.match('/v1-2/x')).toBeUndefined();
  });

  it('keeps the root template and a template with a trailing slash working', () => {
    expect(compileUriTemplate('', '/').match('/')).toEqual({});
    expect(compileUriTemplate('/rest', '/').match('/rest')).toEqual({});
    expect(compileUriTemplate('/rest', '/items/').match('/rest/items')).toEqual({});
    expect(compileUriTemplate('/rest', '/items/').match('/rest/items/')).toEqual({});
  });

  it('gives an answer for a 10 000-character segment against parameters separated by a character it is made of', () => {
    const dashes = '-'.repeat(10_000);
    const matcher = compileUriTemplate('/rest', '/{a}-{b}-{c}-{d}-{e}-{f}');
    expect(matcher.match(`/rest/${dashes}/x`)).toBeUndefined();
    expect(matcher.match(`/rest/${dashes}`)).toEqual({
      a: '-'.repeat(9_990),
      b: '-',
      c: '-',
      d: '-',
      e: '-',
      f: '-',
    });
    expect(matcher.match(`/rest/${'a'.repeat(10_000)}`)).toBeUndefined();
  });

  it('matches what the former regular expression matched, with the same values, on short random paths', () => {
    // The former matcher, for comparison where it is still fast (short paths).
    const former = (prefix: string, uriTemplate: string) => {
      const names: string[] = [];
      const source = `${prefix}${uriTemplate}`
        .split(/(\{[^}]*\})/)
        .map((part) => {
          if (!/^\{[^}]*\}$/.test(part)) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(part.slice(1, -1));
          return '([^/]+)';
        })
        .join('')
        .replace(/\/$/, '');
      const pattern = new RegExp(`^${source}/?$`, 'i');
      return (path: string) => {
        const found = pattern.exec(path);
        return found ? Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1])])) : undefined;
      };
    };
    const random = createSeededRandom(15);
    let compared = 0;
    let matched = 0;
    const differences: string[] = [];
    for (let t = 0; t < 300; t++) {
      let template = '';
      let parameters = 0;
      for (let piece = 1 + random.below(5); piece > 0; piece--) {
        template += random.pick(['/', 'a', 'B', '-', '.', '/x']);
        if (random.below(2)) template += `{p${parameters++}}`;
      }
      template = `/${template}`;
      if (findUriTemplateProblem(template)) continue;
      const expected = former('/r', template);
      const actual = compileUriTemplate('/r', template);
      for (let p = 0; p < 20; p++) {
        // Half filled in from the template (mostly matching, with ambiguous splits), half random.
        const path = random.below(2)
          ? `/R${template.replace(/\{[^}]*\}/g, () => random.text(1 + random.below(4), 'aB-.x'))}${random.pick(['', '/', '//'])}`
          : `/r/${random.text(random.below(12), 'aAbB-.x/')}`;
        const [mine, theirs] = [JSON.stringify(actual.match(path)), JSON.stringify(expected(path))];
        if (mine !== theirs) differences.push(`${template} ${path}: ${mine} instead of ${theirs}`);
        compared++;
        if (expected(path)) matched++;
      }
    }
    expect(differences).toEqual([]);
    expect(compared).toBeGreaterThan(3000);
    expect(matched).toBeGreaterThan(200);
  });

  it('keeps a project with adjacent parameters from starting or passing --check, naming file and line', async () => {
    const files = sampleFiles();
    const project = await writeProject({
      ...files,
      'services/users/user/service.yml': (files['services/users/user/service.yml'] as string).replace(
        'uriTemplate: /users/{id}',
        'uriTemplate: /users/{id}{format}',
      ),
    });
    try {
      await expect(checkProject({ projectDir: project })).rejects.toMatchObject({
        code: 'PROJECT_INVALID',
        message: expect.stringMatching(
          /^services\/users\/user\/service\.yml:\d+: \/uriTemplate: the parameters \{id\} and \{format\}/m,
        ),
      });
      await expect(serveProject(project, { watch: false })).rejects.toMatchObject({ code: 'PROJECT_INVALID' });
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
