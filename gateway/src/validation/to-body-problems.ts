import type { ValidateFunction } from 'ajv';
import type { RequestProblem as Problem } from '@restbus/infra';

/** A form field's name as a JSON Pointer token (RFC 6901), as ajv names a property in `instancePath`. */
export const pointer = (name: string): string => `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** ajv's errors as problems at `body`, under `at` (a field's pointer) when given: `body/age`, `body/place/lat`. */
export function toBodyProblems(errors: ValidateFunction['errors'], at = ''): Problem[] {
  return (errors ?? []).map((error) => ({
    location: `body${at}${error.instancePath}`,
    message: error.message ?? 'is invalid',
  }));
}
