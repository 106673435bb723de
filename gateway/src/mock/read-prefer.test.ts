import { readPrefer } from './read-prefer';

describe('readPrefer', () => {
  it('reads code and example from one header or several, ignoring other preferences', () => {
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
