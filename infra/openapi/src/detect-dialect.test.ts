import { detectDialect } from './detect-dialect';

describe('detectDialect()', () => {
  it('reads swagger 2.0, written quoted or as the number YAML makes of it', () => {
    expect(detectDialect({ swagger: '2.0' })).toBe('2.0');
    expect(detectDialect({ swagger: 2.0 })).toBe('2.0');
  });

  it('knows no other swagger version', () => {
    expect(detectDialect({ swagger: '1.2' })).toBeUndefined();
    expect(detectDialect({ swagger: '2.1' })).toBeUndefined();
  });

  it.each(['3.0.0', '3.0.3', '3.0', '3'])('reads openapi %s as 3.0', (version) => {
    expect(detectDialect({ openapi: version })).toBe('3.0');
  });

  it.each(['3.1.0', '3.1', '3.2.0', '3.9'])('reads openapi %s as 3.1', (version) => {
    expect(detectDialect({ openapi: version })).toBe('3.1');
  });

  it.each(['2.0', '4.0.0', '3.00', '30', 'three', ''])('knows no openapi %j', (version) => {
    expect(detectDialect({ openapi: version })).toBeUndefined();
  });

  it('goes by swagger when a document has both fields, and knows nothing of one that has neither', () => {
    expect(detectDialect({ swagger: '2.0', openapi: '3.1.0' })).toBe('2.0');
    expect(detectDialect({ swagger: '3.0', openapi: '3.0.0' })).toBeUndefined();
    expect(detectDialect({ info: { title: 'x' } })).toBeUndefined();
  });
});
