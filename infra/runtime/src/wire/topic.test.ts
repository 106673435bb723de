import { assertSafeTopic, toTopic } from './topic';

describe('toTopic', () => {
  it('joins the prefix, the lower-case method and the path template with braces', () => {
    expect(toTopic('easer', 'PUT', '/persons/{personId}')).toBe('easer.put_/persons/{personId}');
  });
});

describe('assertSafeTopic', () => {
  it('accepts subjects made of path templates', () => {
    expect(() => assertSafeTopic('easer.get_/persons/{personId}')).not.toThrow();
  });

  it.each([
    ['a wildcard token', 'easer.get_/files.*', /wildcard/],
    ['a full wildcard token', 'easer.get_/files.>', /wildcard/],
    ['whitespace', 'easer.get_/my files', /whitespace/],
    ['an empty token', 'easer.get_/v1..json', /empty token/],
  ])('rejects a subject with %s', (_what, topic, message) => {
    expect(() => assertSafeTopic(topic)).toThrow(message);
  });
});
