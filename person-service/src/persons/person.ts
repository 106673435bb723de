import Ajv from 'ajv';
import { describeSchemaErrors } from '@restbus/infra';

export interface Person {
  id: string;
  familyName: string;
  givenName: string;
}

export type NewPerson = Omit<Person, 'id'>;

const ajv = new Ajv({ allErrors: true, strict: false });

const properties = { familyName: { type: 'string' }, givenName: { type: 'string' } } as const;
const checkPerson = ajv.compile<Person>({
  type: 'object',
  required: ['id', 'familyName', 'givenName'],
  additionalProperties: false,
  properties: { id: { type: 'string', minLength: 1 }, ...properties },
});
const checkNewPerson = ajv.compile<NewPerson>({
  type: 'object',
  required: ['familyName', 'givenName'],
  additionalProperties: false,
  properties,
});

/** The result of reading a request body: the value, or a sentence saying what is wrong with it. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function parseJsonObject(contentType: string | string[] | undefined, body: string): Parsed<unknown> {
  const type = String(contentType ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    return { ok: false, error: `the body must be sent as application/json, not ${type || 'without a content type'}` };
  }
  if (body === '') return { ok: false, error: 'the body is empty; a JSON person is expected' };
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false, error: 'the body is not valid JSON' };
  }
}

/** Reads a whole person `{id, familyName, givenName}` from a request body. */
export function parsePerson(contentType: string | string[] | undefined, body: string): Parsed<Person> {
  const parsed = parseJsonObject(contentType, body);
  if (!parsed.ok) return parsed;
  if (!checkPerson(parsed.value))
    return { ok: false, error: `not a person: ${describeSchemaErrors(checkPerson.errors)}` };
  return { ok: true, value: parsed.value };
}

/** Reads a person without an id `{familyName, givenName}` from a request body. */
export function parseNewPerson(contentType: string | string[] | undefined, body: string): Parsed<NewPerson> {
  const parsed = parseJsonObject(contentType, body);
  if (!parsed.ok) return parsed;
  if (!checkNewPerson(parsed.value))
    return { ok: false, error: `not a new person: ${describeSchemaErrors(checkNewPerson.errors)}` };
  return { ok: true, value: parsed.value };
}
