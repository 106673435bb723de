import { toTestFileName } from './to-test-file-name';

describe('toTestFileName', () => {
  it('keeps a plain name as it is, spaces included', () => {
    expect(toTestFileName('Get Monitoring Is Alive', '.mjs')).toBe('Get Monitoring Is Alive.mjs');
    expect(toTestFileName('Überprüfe die Bestellung', '.mjs')).toBe('Überprüfe die Bestellung.mjs');
  });

  it('replaces path separators and the characters Windows refuses', () => {
    expect(toTestFileName('a/b\\c: d? <e> "f" |g| *h*', '.mjs')).toBe('a-b-c- d- -e- -f- -g- -h-.mjs');
    expect(toTestFileName('../../etc/passwd', '.mjs')).toBe('-..-etc-passwd.mjs');
  });

  it('folds control characters and runs of whitespace, and trims dots and spaces at the ends', () => {
    expect(toTestFileName(' line\none\ttwo\u0007 ...', '.mjs')).toBe('line one two-.mjs');
    expect(toTestFileName('...', '.mjs')).toBe('test-case.mjs');
    expect(toTestFileName('', '.mjs')).toBe('test-case.mjs');
  });

  it('avoids the device names Windows reserves', () => {
    expect(toTestFileName('CON', '.mjs')).toBe('CON-.mjs');
    expect(toTestFileName('lpt1.x', '.mjs')).toBe('lpt1.x-.mjs');
  });

  it('shortens very long names without splitting a character', () => {
    const name = toTestFileName('ü'.repeat(300), '.mjs');
    expect(name).toBe(`${'ü'.repeat(120)}.mjs`);
  });
});
