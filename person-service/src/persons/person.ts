import Ajv from 'ajv';
import { describeSchemaErrors, readJsonBody, type IncomingRequest, type Parsed } from '@restbus/infra';

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

/** Reads a whole person `{id, familyName, givenName}` from a request body. */
export function parsePerson(request: IncomingRequest): Parsed<Person> {
  const parsed = readJsonBody(request, 'person');
  if (!parsed.ok) return parsed;
  if (!checkPerson(parsed.value))
    return { ok: false, error: `not a person: ${describeSchemaErrors(checkPerson.errors)}` };
  return { ok: true, value: parsed.value };
}

/** Reads a person without an id `{familyName, givenName}` from a request body. */
export function parseNewPerson(request: IncomingRequest): Parsed<NewPerson> {
  const parsed = readJsonBody(request, 'person');
  if (!parsed.ok) return parsed;
  if (!checkNewPerson(parsed.value))
    return { ok: false, error: `not a new person: ${describeSchemaErrors(checkNewPerson.errors)}` };
  return { ok: true, value: parsed.value };
}
