import { findInvalidSchemas } from '@restbus/infra/testing';
import * as schemas from './schemas';

// createSchemaCheck compiles these without checking them against the meta-schema: it is done here, once.
describe('the project format schemas', () => {
  it('are valid JSON schemas', () => {
    expect(Object.keys(schemas).filter((name) => name.endsWith('Schema')).length).toBeGreaterThanOrEqual(9);
    expect(findInvalidSchemas(schemas)).toEqual([]);
  });

  it('finds a schema that is not valid, as a check that can fail', () => {
    expect(findInvalidSchemas({ idSchema: { type: 'object', required: 'id' } })).toEqual([
      expect.stringMatching(/^idSchema: /),
    ]);
  });
});
