import { readErrorCode, readErrorMessage } from './read-caught-error';

describe('readErrorCode', () => {
  it("reads a system error's code", () => {
    expect(readErrorCode(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBe('ENOENT');
  });

  it('reads a numeric code as text', () => {
    expect(readErrorCode({ code: 503 })).toBe('503');
  });

  it('gives undefined for a thrown value with no code, an object code, null or a string', () => {
    expect([new Error('plain'), { code: {} }, null, undefined, 'ENOENT'].map(readErrorCode)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('readErrorMessage', () => {
  it("reads an Error's message and a message-like object's", () => {
    expect(readErrorMessage(new TypeError('bad type'))).toBe('bad type');
    expect(readErrorMessage({ message: 'from a worker' })).toBe('from a worker');
  });

  it('gives any other thrown value as text', () => {
    expect([42, 'text', null, { message: 7 }].map(readErrorMessage)).toEqual(['42', 'text', 'null', '[object Object]']);
  });
});
