import { LINEAR, QUADRATIC, meterAtScales, meterWork } from '../__tests__/meter-work';
import { MAX_QUERY_PARAMETERS, parseQuery } from './parse-query';

/**
 * The cost of reading a query, counted (issue 45). Distinct keys are read in work linear in the query. A repeated
 * key is not: qs (6.17) appends each repeat by copying the list so far (`[].concat(list, value)`), so its copies grow
 * with the square of the repeats; what bounds them is the cap of MAX_QUERY_PARAMETERS parameters, past which the
 * query is refused after one split, whatever its length.
 */

const distinct = (count: number): string => Array.from({ length: count }, (_, i) => `x${i}[a][b][c]=1`).join('&');
const repeated = (count: number): string => Array.from({ length: count }, (_, i) => `k=v${i % 97}`).join('&');

describe('parseQuery reads a query in work bounded by its length and its parameter cap', () => {
  it('reads many distinct nested keys in work linear in the query (a pass over the query for each key is refused)', async () => {
    const parsed = parseQuery(distinct(880));
    expect(Object.keys(parsed)).toHaveLength(880);
    expect(parsed.x879).toEqual({ a: { b: { c: '1' } } });
    const real = await meterAtScales((scale) => distinct(110 * scale), parseQuery);
    expect(real.ratio).toBeLessThanOrEqual(LINEAR);
    expect(real.ratio).toBeGreaterThan(4);
    // The negative control: each parameter looked for in the whole query again.
    const quadratic = (text: string) => text.split('&').filter((part) => text.indexOf(part) >= 0).length;
    const control = await meterAtScales((scale) => distinct(110 * scale), quadratic);
    expect(control.ratio).toBeGreaterThanOrEqual(QUADRATIC);
  });

  it('reads a key repeated up to the cap into one list, in work bounded by the cap (qs copies the list each time)', async () => {
    const list = parseQuery(repeated(MAX_QUERY_PARAMETERS)).k as string[];
    expect([list.length, list[0], list[999]]).toEqual([1000, 'v0', `v${999 % 97}`]);
    const atCap = await meterWork(() => parseQuery(repeated(MAX_QUERY_PARAMETERS)));
    // Each repeat copies the list so far: n(n+1)/2 items at most, plus a linear read of the text.
    const copies = (MAX_QUERY_PARAMETERS * (MAX_QUERY_PARAMETERS + 1)) / 2;
    expect(atCap.units).toBeLessThan(copies + 40 * repeated(MAX_QUERY_PARAMETERS).length);
  });

  it('refuses a query past the cap after the same bounded work, however far past it', async () => {
    const past = (scale: number) => repeated(8 * MAX_QUERY_PARAMETERS * scale);
    expect(() => parseQuery(past(1))).toThrow(/more than 1000 parameters/);
    const refused = await meterAtScales(past, (text) => {
      try {
        parseQuery(text);
      } catch {
        // refused, as expected above
      }
    });
    // Two scans of the text (qs turns %5B and %5D into brackets), then a split that stops at the cap: no parameter
    // is read, so the work is a few units a character.
    expect(refused.ratio).toBeLessThanOrEqual(LINEAR);
    expect(refused.large).toBeLessThanOrEqual(4 * past(8).length);
  });
});
