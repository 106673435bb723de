import { findInvalidSchemas } from '../testing';
import * as schemas from './schemas';

// codec.ts and reply-apart.ts compile these without checking them against the meta-schema: it is done here, once.
describe('the wire schemas', () => {
  it('are valid JSON schemas', () => {
    expect(Object.keys(schemas).filter((name) => name.endsWith('Schema')).length).toBeGreaterThanOrEqual(3);
    expect(findInvalidSchemas(schemas)).toEqual([]);
  });

  it('finds a schema that is not valid, as a check that can fail', () => {
    expect(findInvalidSchemas({ idSchema: { type: 'object', properties: { id: { type: 'strin' } } } })).toEqual([
      expect.stringMatching(/^idSchema: /),
    ]);
  });
});
