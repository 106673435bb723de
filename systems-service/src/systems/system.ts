import Ajv from 'ajv';
import { describeSchemaErrors } from '@restbus/infra';

/** A system: an id, a name, and whatever else the client sent. */
export interface System {
  id: string;
  name: string;
  [property: string]: unknown;
}

export interface NewSystem {
  id?: string;
  name: string;
  [property: string]: unknown;
}

const checkNewSystem = new Ajv({ allErrors: true, strict: false }).compile<NewSystem>({
  type: 'object',
  required: ['name'],
  properties: { id: { type: 'string', minLength: 1 }, name: { type: 'string' } },
});

/** Reads `{name, ...}` with an optional `id` from a request body, or says what is wrong with it. */
export function parseNewSystem(
  contentType: string | string[] | undefined,
  body: string,
): { ok: true; value: NewSystem } | { ok: false; error: string } {
  const type = String(contentType ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    return { ok: false, error: `the body must be sent as application/json, not ${type || 'without a content type'}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return {
      ok: false,
      error: body === '' ? 'the body is empty; a JSON system is expected' : 'the body is not valid JSON',
    };
  }
  if (!checkNewSystem(value))
    return { ok: false, error: `not a system: ${describeSchemaErrors(checkNewSystem.errors)}` };
  return { ok: true, value };
}
