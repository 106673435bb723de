import { parseServicePath, sameServicePath } from './service-path';

describe('parseServicePath()', () => {
  it.each([
    ['users/user', '/users/user'],
    ['/users/user/', '/users/user'],
    ['//users//user', '/users/user'],
    ['/ünïcode/ok', '/ünïcode/ok'],
  ])('turns %j into the entry %j', (input, entry) => {
    expect(parseServicePath(input)).toEqual({ entry, segments: entry.slice(1).split('/') });
  });

  it.each(['', '/', '../x', '/a/../../x', '/a/./b', 'a\\b', 'a\nb', '/a\0'])('refuses %j', (input) => {
    expect(parseServicePath(input)).toEqual({ problem: expect.any(String) });
  });

  it('compares entries however they are spelled', () => {
    expect(sameServicePath('/users/', 'users')).toBe(true);
    expect(sameServicePath('/users', '/users/user')).toBe(false);
  });
});
