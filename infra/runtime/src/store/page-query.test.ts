import { RestbusError } from '../errors/restbus-error';
import { createRequestMessage } from '../testing/create-request-message';
import type { QueryValue } from '../wire/types';
import { describePage, readPageRequest } from './page-query';
import { JsonText } from '../wire/json-text';

const ask = (query: Record<string, QueryValue>) =>
  readPageRequest(createRequestMessage({ parameters: { query, uri: {} } }).request, 50_000);
const page = (next?: string) => ({ items: [], json: new JsonText('[]'), stale: false, ...(next ? { next } : {}) });

describe('readPageRequest', () => {
  it('asks for as much as fits in one reply, no count limit, when the client gives no limit', () => {
    expect(ask({})).toEqual({ maxBytes: 50_000 });
    expect(ask({ cursor: 'bzM' })).toEqual({ maxBytes: 50_000, cursor: 'bzM' });
  });

  it("takes the client's limit from 1 to 1000", () => {
    expect(ask({ limit: '10' })).toEqual({ maxBytes: 50_000, limit: 10 });
    expect(ask({ limit: ['1000'] })).toEqual({ maxBytes: 50_000, limit: 1000 });
  });

  it.each([['0'], ['1001'], ['ten'], ['1e2'], [''], [['1', '2']]])('refuses limit=%j as REQUEST_INVALID', (limit) => {
    expect(() => ask({ limit })).toThrow(RestbusError);
    expect(() => ask({ limit })).toThrow(/limit/);
  });
});

describe('describePage', () => {
  it('links the next page by its cursor alone when the client gave no limit', () => {
    expect(describePage(page('bzM'), { maxBytes: 1 })).toEqual({ link: '<?cursor=bzM>; rel="next"' });
  });

  it("keeps the client's limit in the link", () => {
    expect(describePage(page('bzM'), { limit: 10, maxBytes: 1 })).toEqual({
      link: '<?limit=10&cursor=bzM>; rel="next"',
    });
  });

  it('has no link on the last page', () => {
    expect(describePage(page(), { limit: 10, maxBytes: 1 })).toEqual({});
  });
});
