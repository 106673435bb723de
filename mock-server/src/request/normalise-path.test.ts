import { normalisePath } from './normalise-path';

describe('normalisePath', () => {
  it.each([
    ['/rest/monitoring/isAlive', '/rest/monitoring/isAlive'],
    ['/rest/monitoring//isAlive', '/rest/monitoring/isAlive'],
    ['//rest///users/', '/rest/users/'],
    ['/rest/monitoring/is%41live', '/rest/monitoring/isAlive'],
    ['/rest/%7Euser/a%2Db', '/rest/~user/a-b'],
    ['/rest/caf%C3%A9', '/rest/caf%C3%A9'],
    ['/rest/a%20b', '/rest/a%20b'],
    ['/rest/v1.2/..x', '/rest/v1.2/..x'],
  ])('spells %s as %s', (raw, expected) => {
    expect(normalisePath(raw)).toEqual({ path: expected, hasEncodedSeparator: false });
  });

  it.each(['/rest/a%2fb', '/rest/a%5Cb', '/rest/a\\b'])(
    'keeps %s (a parameter may hold a slash) and says it holds an encoded separator',
    (raw) => {
      expect(normalisePath(raw)).toEqual({ path: raw, hasEncodedSeparator: true });
    },
  );

  it.each([
    '/rest/../admin',
    '/rest/./users',
    '/rest/..',
    '/rest/%2e%2e/admin',
    '/rest/%2E./admin',
    '/rest/.%2e',
    '/rest/a%00b',
  ])('refuses %s with a 400 BAD_REQUEST', (raw) => {
    expect(() => normalisePath(raw)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });

  it.each(['/rest/customers/%ZZ', '/rest/%', '/rest/a%2', '/rest/%C3', '/rest/%E0%A4%A', '/rest/%FF'])(
    'refuses the malformed percent-encoding of %s with a 400 BAD_REQUEST',
    (raw) => {
      expect(() => normalisePath(raw)).toThrow(
        expect.objectContaining({ code: 'BAD_REQUEST', message: 'the path holds a malformed percent-encoding' }),
      );
    },
  );
});
