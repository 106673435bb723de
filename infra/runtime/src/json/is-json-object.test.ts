import { isJsonObject } from './is-json-object';

describe('isJsonObject', () => {
  it('takes parsed objects, and no arrays, null or scalars', () => {
    const values = [{}, JSON.parse('{"a":1}') as unknown, [], null, 'text', 1, true, undefined];
    expect(values.map(isJsonObject)).toEqual([true, true, false, false, false, false, false, false]);
  });
});
