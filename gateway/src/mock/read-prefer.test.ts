import { readMockPreference, readPrefer } from './read-prefer';

describe('readPrefer', () => {
  it('reads code, example and dynamic from one header or several, ignoring other preferences', () => {
    expect(readPrefer('dynamic=true')).toEqual({ dynamic: true });
    expect(readPrefer('code=404, example=gone')).toEqual({ code: 404, example: 'gone' });
    expect(readPrefer(['respond-async', 'code=201; example="made it"'])).toEqual({ code: 201, example: 'made it' });
    expect(readPrefer(undefined)).toEqual({});
    expect(readPrefer('return=minimal')).toEqual({});
  });

  it('refuses a code that is no HTTP status as BAD_REQUEST', () => {
    expect(() => readPrefer('code=99')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    expect(() => readPrefer('code=abc')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });
});

describe('readMockPreference', () => {
  it("reads Prism's query selectors when there is no Prefer header, the last of each winning", () => {
    expect(readMockPreference(undefined, 'limit=2&__code=404&__example=cat&__dynamic=false&__code=503')).toEqual({
      from: 'query',
      code: 503,
      example: 'cat',
      dynamic: false,
    });
    expect(readMockPreference(undefined, 'a__b=1&limit=2')).toEqual({ from: 'query' });
  });

  it('reads only the Prefer header when there is one, even one naming nothing the mock reads', () => {
    expect(readMockPreference('code=201, dynamic=true', '__code=404')).toEqual({ code: 201, dynamic: true });
    expect(readMockPreference('respond-async', '__code=404')).toEqual({});
  });

  it('refuses a selector code or dynamic value Prefer would refuse, naming it as the query wrote it', () => {
    expect(() => readMockPreference(undefined, '__code=1xx')).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringContaining('?__code=1xx') }),
    );
    expect(() => readMockPreference(undefined, '__dynamic=yes')).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringContaining('?__dynamic=yes') }),
    );
    expect(() => readPrefer('dynamic=1')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });
});
