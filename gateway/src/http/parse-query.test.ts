import { parseQuery } from './parse-query';

describe('parseQuery', () => {
  it('reads an empty query as it reads any other, without a prototype: a parameter named toString is absent', () => {
    for (const text of ['', 'a=1']) {
      const query = parseQuery(text);
      expect(Object.getPrototypeOf(query)).toBeNull();
      expect('toString' in query || 'constructor' in query).toBe(false);
    }
  });

  it('keeps constructor and prototype keys as data and drops __proto__ keys', () => {
    const query = parseQuery('constructor[prototype][polluted]=1&__proto__[polluted]=1&__proto__=x');
    expect(Object.keys(query)).toEqual(['constructor']);
    expect(query.constructor).toEqual({ prototype: { polluted: '1' } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
