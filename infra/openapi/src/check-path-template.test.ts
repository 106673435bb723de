import { checkPathTemplate } from './check-path-template';

describe('checkPathTemplate()', () => {
  it.each(['/', '/persons', '/persons/{id}', '/persons/{id}/groups/{groupId}', '/files/{name}.json', '/a-b_c~d'])(
    'accepts %s',
    (path) => {
      expect(checkPathTemplate(path)).toBeUndefined();
    },
  );

  it('refuses a path that does not start with a slash', () => {
    expect(checkPathTemplate('persons')).toBe('a path must start with "/"');
    expect(checkPathTemplate('')).toBe('a path must start with "/"');
  });

  it.each(['/a b', '/items/*', '/items/>'])(
    'refuses %j, whose whitespace or NATS wildcard cannot be part of a subject',
    (path) => {
      expect(checkPathTemplate(path)).toMatch(/whitespace or a NATS wildcard/);
    },
  );

  it('refuses a control character, a tab too, naming it', () => {
    expect(checkPathTemplate('/a\u0000b')).toMatch(/^the path contains .+, which cannot be part of a NATS subject$/);
    expect(checkPathTemplate('/a\tb')).toBe(
      'the path contains the control character \\t, which cannot be part of a NATS subject',
    );
  });

  it.each(['/a..b', '/a.', '/a./b', '/a/./b'])('refuses %s, which would give a subject an empty token', (path) => {
    expect(checkPathTemplate(path)).toMatch(/empty token/);
  });

  it.each(['/{id', '/id}', '/{a/b}', '/{}', '/{{id}}'])('refuses %s, whose braces do not make parameters', (path) => {
    expect(checkPathTemplate(path)).toMatch(/^not a valid path template/);
  });

  it('refuses a parameter named twice, naming it', () => {
    expect(checkPathTemplate('/{id}/friends/{id}')).toBe('the path names the parameter {id} twice');
  });
});
