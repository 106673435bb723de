import type { ApiResponse } from '@restbus/openapi';
import { chooseResponse } from './choose-response';

const declared = (...keys: string[]): ApiResponse[] =>
  keys.map((status) => ({ status, key: status, description: status, content: {}, headers: {} }));
const choose = (keys: string[], code?: number) => {
  const chosen = chooseResponse(declared(...keys), code);
  return chosen && [chosen.key, chosen.status];
};

describe('chooseResponse', () => {
  it('takes the lowest 2xx, whatever the order of the document', () => {
    expect(choose(['404', '201', '200', 'default'])).toEqual(['200', 200]);
    expect(choose(['204', '202'])).toEqual(['202', 202]);
  });

  it('takes a 2XX range as 200, then default as 200, then the lowest code', () => {
    expect(choose(['2XX', '404'])).toEqual(['2XX', 200]);
    expect(choose(['default', '404'])).toEqual(['default', 200]);
    expect(choose(['500', '404'])).toEqual(['404', 404]);
    expect(choose(['5XX'])).toEqual(['5XX', 500]);
    expect(choose([])).toBeUndefined();
  });

  it('takes the preferred code exactly, else its range, else default, sent with the preferred status', () => {
    expect(choose(['200', '404', '4XX'], 404)).toEqual(['404', 404]);
    expect(choose(['200', '4XX'], 410)).toEqual(['4XX', 410]);
    expect(choose(['200', 'default'], 503)).toEqual(['default', 503]);
  });

  it('refuses a preferred code the operation does not declare, naming those it does', () => {
    expect(() => choose(['200', '404'], 500)).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringContaining('it declares 200, 404') }),
    );
  });
});
