import Ajv from 'ajv';
import * as schemas from './schemas';

// codec.ts and reply-apart.ts compile these without checking them against the meta-schema (that check compiled the
// meta-schema at every start): it is done here instead, once.
describe('the wire schemas', () => {
  const meta = new Ajv({ strict: true });
  it.each(Object.entries(schemas).filter(([name]) => name.endsWith('Schema')))(
    '%s is a valid JSON schema',
    (_name, schema) => {
      expect({ valid: meta.validateSchema(schema as object), errors: meta.errors ?? null }).toEqual({
        valid: true,
        errors: null,
      });
    },
  );

  it('finds a schema that is not valid, as a check that can fail', () => {
    expect(meta.validateSchema({ type: 'object', properties: { id: { type: 'strin' } } })).toBe(false);
  });
});
