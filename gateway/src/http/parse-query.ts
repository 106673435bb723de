import { parse } from 'qs';
import { RestbusError, type QueryValue } from '@restbus/infra';

export const MAX_QUERY_PARAMETERS = 1000;
export const MAX_QUERY_DEPTH = 5;

/**
 * Reads a query string as easer's Express did (qs's extended syntax: `b[c]=3` is `{b: {c: "3"}}`, `a[]=1` and a
 * repeated key are lists), within bounds: at most 1000 parameters, and a list index at most 1000 (qs compacts
 * lists, so `a[999]=x` is `["x"]`), else `400 REQUEST_INVALID`; brackets nested deeper than 5 stay part of the
 * key, as in qs. A repeated key stays a list however long (qs's own default would turn a 21st value into an
 * object). Objects have no prototype, so `constructor` or `toString` keys are plain data, and a parameter of that
 * name is absent when not sent; qs drops `__proto__` keys.
 */
export function parseQuery(text: string): Record<string, QueryValue> {
  // Not `{}`: an optional parameter named `toString` would read as the inherited function, and be refused.
  if (text === '') return Object.create(null) as Record<string, QueryValue>;
  try {
    return parse(text, {
      depth: MAX_QUERY_DEPTH,
      parameterLimit: MAX_QUERY_PARAMETERS,
      arrayLimit: MAX_QUERY_PARAMETERS,
      throwOnLimitExceeded: true,
      plainObjects: true,
      allowPrototypes: true,
    }) as Record<string, QueryValue>;
  } catch (err) {
    throw new RestbusError(
      'REQUEST_INVALID',
      `the query has more than ${MAX_QUERY_PARAMETERS} parameters, or a list index above ${MAX_QUERY_PARAMETERS}`,
      { cause: err },
    );
  }
}
