import { parse } from 'yaml';
import { appendServices } from './append-services';

describe('appendServices()', () => {
  it('adds the entries after the last item and keeps every other byte, comments included', () => {
    const text = [
      '# project',
      'projectName: "crm-api"   # quoted on purpose',
      'services:',
      '    - /monitoring/isAlive',
      '    # To add new services, put here the path',
      'loginCredentials:',
      '    user: username',
      '',
    ].join('\n');
    const result = appendServices(text, ['/users', '/users/user']);
    expect(result).toBe(
      [
        '# project',
        'projectName: "crm-api"   # quoted on purpose',
        'services:',
        '    - /monitoring/isAlive',
        '    - /users',
        '    - /users/user',
        '    # To add new services, put here the path',
        'loginCredentials:',
        '    user: username',
        '',
      ].join('\n'),
    );
  });

  it('keeps a comment that ends the last item line on that line', () => {
    const result = appendServices('services:\n- /a # first\nother: 1\n', ['/b']);
    expect(result).toBe('services:\n- /a # first\n- /b\nother: 1\n');
  });

  it('appends to a flow list, empty or not, keeping its spacing', () => {
    expect(appendServices('services: []\n', ['/a'])).toBe('services: [/a]\n');
    expect(appendServices('services: [ /a ]\n', ['/b', '/c'])).toBe('services: [ /a, /b, /c ]\n');
  });

  it('keeps Windows line endings and a file without a final newline', () => {
    expect(appendServices('a: 1\r\nservices:\r\n  - /x\r\nb: 2\r\n', ['/y'])).toBe(
      'a: 1\r\nservices:\r\n  - /x\r\n  - /y\r\nb: 2\r\n',
    );
    expect(appendServices('services:\n  - /x', ['/y'])).toBe('services:\n  - /x\n  - /y');
  });

  it('quotes an entry that would not read back as itself and proves it does', () => {
    const entries = ['/a: b', '/x #y', "/it's", '/ü/&anchor', '/a,b'];
    const block = appendServices('services:\n  - /x\n', entries);
    expect((parse(block) as { services: string[] }).services).toEqual(['/x', ...entries]);
    const flow = appendServices('services: [/x]\n', entries);
    expect((parse(flow) as { services: string[] }).services).toEqual(['/x', ...entries]);
  });

  it('refuses a services value that is not a list in the file', () => {
    expect(() => appendServices('services: /a\n', ['/b'])).toThrow(/not a list/);
    expect(() => appendServices('base: &l [/a]\nservices: *l\n', ['/b'])).toThrow(/not a list/);
  });
});
