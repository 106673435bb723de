import Ajv from 'ajv';
import { describeSchemaErrors, readJsonBody, type IncomingRequest, type Parsed } from '@restbus/infra';

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
export function parseNewSystem(request: IncomingRequest): Parsed<NewSystem> {
  const parsed = readJsonBody(request, 'system');
  if (!parsed.ok) return parsed;
  if (!checkNewSystem(parsed.value))
    return { ok: false, error: `not a system: ${describeSchemaErrors(checkNewSystem.errors)}` };
  return { ok: true, value: parsed.value };
}
