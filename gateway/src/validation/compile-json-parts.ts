import type { ValidateFunction } from 'ajv';
import {
  findSchemaErrors,
  isJsonMediaType,
  isNestedDeeperThan,
  MAX_JSON_DEPTH,
  REQUEST_MISTAKES,
  type InputCompilers,
  type RequestProblem as Problem,
  type ValidatorPair,
} from '@restbus/infra';
import type { ApiEncoding } from '@restbus/openapi';
import { allowsType } from './read-styled-value';
import { pointer, toBodyProblems } from './to-body-problems';

const texts = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * Whether a multipart field's parts are JSON: its encoding's `contentType` names a JSON type, or, with none
 * written, its schema is an object's (OpenAPI 3.x's default part type for an object is `application/json`).
 */
function isJsonPart(schema: unknown, encoding: ApiEncoding | undefined): boolean {
  if (encoding?.contentType !== undefined) return encoding.contentType.split(',').some(isJsonMediaType);
  return allowsType(schema, 'object') && !allowsType(schema, 'string');
}

/** A part's JSON text parsed, or the mistake that kept it from being parsed. */
function parsePart(text: string): { value: unknown } | { mistake: { problem: Problem } } {
  // Deeper than any API needs, and a stack a parse, a check or a copy would overflow.
  if (isNestedDeeperThan(text, MAX_JSON_DEPTH)) return { mistake: REQUEST_MISTAKES.jsonTooDeep };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { mistake: REQUEST_MISTAKES.malformedJson };
  }
}

/** The check of a multipart form's JSON parts (compileJsonParts). */
export interface JsonPartsCheck {
  /** The fields whose parts are JSON: the form's own check takes any value for them. */
  names: ReadonlySet<string>;
  /** Parses the JSON parts among `fields` in place and lists their problems. */
  check(fields: Record<string, unknown>): Problem[];
}

/**
 * Compiles the check of a multipart form's JSON parts: each is parsed (refused as a JSON body is when it is no
 * JSON or nests deeper than 64 levels) and checked against its field's schema as a JSON body is, without coercion:
 * every problem of up to 64 KiB of text, the first of more (findSchemaErrors). A repeated name is a list of values.
 */
export function compileJsonParts(
  properties: Record<string, unknown>,
  encodings: Readonly<Record<string, ApiEncoding>>,
  compilers: InputCompilers,
): JsonPartsCheck {
  const parts = new Map<string, ValidatorPair<ValidateFunction>>();
  for (const [name, schema] of Object.entries(properties)) {
    if (isJsonPart(schema, encodings[name])) parts.set(name, compilers.body.compilePair(schema as object | boolean));
  }
  return {
    names: new Set(parts.keys()),
    check(fields) {
      let problems: Problem[] = [];
      for (const [name, pair] of parts) {
        if (fields[name] === undefined) continue;
        const sent = texts(fields[name]).map(String);
        const parsed: unknown[] = [];
        for (const text of sent) {
          const read = parsePart(text);
          if ('mistake' in read) {
            problems.push({ ...read.mistake.problem, location: `body${pointer(name)}` });
            break;
          }
          parsed.push(read.value);
        }
        if (parsed.length !== sent.length) continue;
        fields[name] = Array.isArray(fields[name]) ? parsed : parsed[0];
        const length = sent.reduce((sum, text) => sum + text.length, 0);
        problems = problems.concat(toBodyProblems(findSchemaErrors(pair, fields[name], length).errors, pointer(name)));
      }
      return problems;
    },
  };
}
