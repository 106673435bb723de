import type { ErrorObject } from 'ajv';
import { isJsonObject, MAX_LISTED_PROBLEMS } from '@restbus/infra';
import { appendPointer, describeValue, type ReplyViolation } from './reply-violation';

/** What the contract asks for, said as briefly as the error allows. */
function describeExpected(error: ErrorObject): string {
  const { params } = error;
  switch (error.keyword) {
    case 'type':
      return String(params.type).split(',').join(' or ');
    case 'required':
      return 'present';
    case 'additionalProperties':
      return 'absent (additionalProperties: false)';
    case 'enum':
      return `one of ${Array.isArray(params.allowedValues) ? params.allowedValues.map(describeValue).join(', ') : ''}`;
    case 'const':
      return describeValue(params.allowedValue);
    case 'format':
      return `format ${String(params.format)}`;
    case 'oneOf':
      return `exactly one of ${Array.isArray(error.schema) ? error.schema.length : 'its'} schemas`;
    case 'anyOf':
      return `at least one of ${Array.isArray(error.schema) ? error.schema.length : 'its'} schemas`;
    case 'pattern':
      return `matching ${String(params.pattern)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${String(params.comparison)} ${String(params.limit)}`;
    default:
      return (error.message ?? error.keyword).replace(/^must (be )?/, '');
  }
}

function toViolation(error: ErrorObject, kind: 'body' | 'header', at: (path: string) => string): ReplyViolation {
  const named: unknown = error.params.missingProperty ?? error.params.additionalProperty;
  const name = typeof named === 'string' ? named : undefined;
  const path = name === undefined ? error.instancePath : appendPointer(error.instancePath, name);
  const actual =
    error.keyword === 'required'
      ? 'absent'
      : describeValue(name === undefined ? error.data : isJsonObject(error.data) ? error.data[name] : undefined);
  return {
    kind,
    severity: 'error',
    pointer: at(path),
    expected: describeExpected(error),
    actual,
    code: error.keyword,
    message: error.keyword === 'required' ? 'is required' : (error.message ?? 'is invalid'),
  };
}

/** Whether a schema path lies under one of `combined` (`#/a/oneOf` holds `#/a/oneOf/0/type`), by its own prefixes. */
function isUnder(schemaPath: string, combined: ReadonlySet<string>): boolean {
  for (let slash = schemaPath.lastIndexOf('/'); slash > 0; slash = schemaPath.lastIndexOf('/', slash - 1)) {
    if (combined.has(schemaPath.slice(0, slash))) return true;
  }
  return false;
}

/**
 * One violation per schema error, at most `max` (MAX_LISTED_PROBLEMS): a failed `oneOf`/`anyOf` stands for its
 * branches' errors. Two passes over the errors, each reading an error's schema path once: comparing every error
 * with every failed `oneOf` (as this did) took 7.8 s for 20,000 list items that each missed a `oneOf`.
 */
export function toViolations(
  errors: readonly ErrorObject[],
  kind: 'body' | 'header',
  at: (path: string) => string,
  max = MAX_LISTED_PROBLEMS,
): ReplyViolation[] {
  const combined = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf') combined.add(error.schemaPath);
  }
  const violations: ReplyViolation[] = [];
  for (const error of errors) {
    if (violations.length >= max) break;
    if (error.keyword === 'if' || (combined.size > 0 && isUnder(error.schemaPath, combined))) continue;
    violations.push(toViolation(error, kind, at));
  }
  return violations;
}
