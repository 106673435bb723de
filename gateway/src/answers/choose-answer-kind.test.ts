import { chooseAnswerKind } from './create-call-answers';

const settings = (forwarding: boolean, mock: boolean, mockWrites = false) => ({ forwarding, mock, mockWrites });

describe('how the calls of an endpoint are answered, chosen once from the settings and its method', () => {
  it('without -u or -m: not implemented (the specification 501), whatever the method', () => {
    expect(chooseAnswerKind(settings(false, false), 'get')).toBe('not-implemented');
    expect(chooseAnswerKind(settings(false, false, true), 'post')).toBe('not-implemented');
  });

  it('with -m alone: the mock, reads and writes', () => {
    expect(chooseAnswerKind(settings(false, true), 'get')).toBe('mock');
    expect(chooseAnswerKind(settings(false, true), 'delete')).toBe('mock');
  });

  it('with -u alone: forwarded, whatever the method', () => {
    expect(chooseAnswerKind(settings(true, false), 'get')).toBe('forward');
    expect(chooseAnswerKind(settings(true, false, true), 'put')).toBe('forward');
  });

  it('with -u -m: safe methods forwarded then mocked, the others forwarded only unless --mockWrites', () => {
    for (const method of ['get', 'head', 'options', 'trace'] as const) {
      expect(chooseAnswerKind(settings(true, true), method)).toBe('forward-then-mock');
    }
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      expect(chooseAnswerKind(settings(true, true), method)).toBe('forward');
      expect(chooseAnswerKind(settings(true, true, true), method)).toBe('forward-then-mock');
    }
  });
});
