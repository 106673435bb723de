import { findUrlRefs, isRemoteUrl, resolveRefUrl } from './find-url-refs';

describe('isRemoteUrl()', () => {
  it.each(['http://x/a.yaml', 'HTTPS://x/a.yaml', 'ftp://x', 'urn:x:y'])('takes %s for a URL', (url) => {
    expect(isRemoteUrl(url)).toBe(true);
  });

  it.each(['file:///a.yaml', 'FILE:/a', 'a.yaml', './a.yaml#/x', '/abs/a.yaml', 'C:\\api\\a.yaml', 'c:/a.yaml'])(
    'takes %s for a local file (a drive letter is no scheme)',
    (url) => {
      expect(isRemoteUrl(url)).toBe(false);
    },
  );
});

describe('resolveRefUrl()', () => {
  it('resolves a relative $ref against the path of its file, keeping the pointer', () => {
    expect(resolveRefUrl('/api/root.yaml', 'parts/a.yaml#/Pet')).toBe('/api/parts/a.yaml#/Pet');
    expect(resolveRefUrl('/api/root.yaml', '../b.yaml')).toBe('/b.yaml');
  });

  it('resolves a protocol-relative $ref to a URL', () => {
    expect(resolveRefUrl('/api/root.yaml', '//host/x.yaml')).toBe('https://host/x.yaml');
  });

  it('leaves an absolute URL one, its scheme lower-cased', () => {
    expect(resolveRefUrl('/api/root.yaml', 'HTTP://host/x.yaml')).toBe('http://host/x.yaml');
  });
});

describe('findUrlRefs()', () => {
  it('finds each $ref written as a URL or resolving to one, with its file and path, in document order', () => {
    const value = {
      components: {
        schemas: {
          Local: { $ref: './local.yaml' },
          Pointer: { $ref: '#/components/schemas/Local' },
          Remote: { $ref: 'https://example.com/pet.yaml' },
        },
      },
      paths: { '/a': { get: { parameters: [{ $ref: '//host/p.yaml' }] } } },
    };
    expect(findUrlRefs([{ url: '/api/root.yaml', value }])).toEqual([
      {
        file: '/api/root.yaml',
        path: ['components', 'schemas', 'Remote'],
        ref: 'https://example.com/pet.yaml',
        target: 'https://example.com/pet.yaml',
      },
      {
        file: '/api/root.yaml',
        path: ['paths', '/a', 'get', 'parameters', 0],
        ref: '//host/p.yaml',
        target: 'https://host/p.yaml',
      },
    ]);
  });

  it('looks in every file it is given, and finds nothing in one that has only local $refs', () => {
    const found = findUrlRefs([
      { url: '/api/root.yaml', value: { a: { $ref: 'b.yaml' } } },
      { url: '/api/b.yaml', value: { b: [{ $ref: 'http://x/c.yaml#/C' }] } },
    ]);
    expect(found.map(({ file, path }) => [file, path])).toEqual([['/api/b.yaml', ['b', 0]]]);
  });

  it('visits an object reached twice (a YAML alias) once', () => {
    const shared = { $ref: 'http://x/s.yaml' };
    const found = findUrlRefs([{ url: '/api/root.yaml', value: { first: shared, second: shared } }]);
    expect(found.map(({ path }) => path)).toEqual([['first']]);
  });

  it('ignores a $ref that is no string, or empty', () => {
    expect(
      findUrlRefs([{ url: '/r.yaml', value: { a: { $ref: 5 }, b: { $ref: '' }, c: [null, 'http://x'] } }]),
    ).toEqual([]);
  });
});
