import type { ErrorObject } from 'ajv';
import { MAX_LISTED_PROBLEMS } from '@restbus/infra';
import { toViolations } from './to-violations';

/** The errors of `items` missing a two-branch `oneOf` each, as ajv lists them, counting each read of a schema path. */
function createOneOfMisses(items: number): { errors: ErrorObject[]; reads: () => number } {
  let reads = 0;
  const error = (instancePath: string, schemaPath: string, keyword: string): ErrorObject => {
    const made = { instancePath, keyword, params: {}, message: `fails ${keyword}`, data: 5 } as unknown as ErrorObject;
    Object.defineProperty(made, 'schemaPath', {
      get: () => {
        reads += 1;
        return schemaPath;
      },
    });
    return made;
  };
  const errors: ErrorObject[] = [];
  const pet = '#/properties/items/items/properties/pet/oneOf';
  for (let i = 0; i < items; i++) {
    errors.push(
      error(`/items/${i}/pet`, `${pet}/0/type`, 'type'),
      error(`/items/${i}/pet`, `${pet}/1/type`, 'type'),
      error(`/items/${i}/pet`, pet, 'oneOf'),
    );
  }
  return { errors, reads: () => reads };
}

describe('the violations of a reply from its schema errors', () => {
  it('says a failed oneOf once, not its branches', () => {
    const { errors } = createOneOfMisses(2);
    expect(toViolations(errors, 'body', (path) => path)).toEqual([
      expect.objectContaining({ pointer: '/items/0/pet', code: 'oneOf' }),
      expect.objectContaining({ pointer: '/items/1/pet', code: 'oneOf' }),
    ]);
  });

  it('reads each error at most twice and lists at most 100, from 9,000 errors of 3,000 oneOf misses', () => {
    const { errors, reads } = createOneOfMisses(3_000);
    const violations = toViolations(errors, 'body', (path) => path);
    expect(violations).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(violations.every((violation) => violation.code === 'oneOf')).toBe(true);
    expect(reads()).toBeLessThanOrEqual(2 * errors.length);
  });
});
