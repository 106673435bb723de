import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import type { RequestProblem } from '../errors/restbus-error';
import { REQUEST_MISTAKES } from '../errors/request-mistakes';
import { isJsonMediaType } from '../http/is-json-media-type';
import { addLinearUniqueItems } from '../validation/add-linear-unique-items';
import { describeRequestProblems, findSchemaErrors, type ValidatorPair } from '../validation/find-schema-errors';
import { linearPatternEngine } from '../validation/linear-pattern-engine';
import { MAX_JSON_DEPTH, isNestedDeeperThan } from '../wire/find-json-depth';
import type { RequestMessage } from '../wire/types';
import { CONTRACT_SCHEMA_ROOT_ID, type Contract, type ContractOperation } from './contract';

const LOCATIONS = ['path', 'query', 'header'] as const;
type Location = (typeof LOCATIONS)[number];

/** The input of a call, checked: parameters coerced to their schemas' types, the body parsed; and the message. */
export interface CheckedInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  message: RequestMessage;
}

// What a location without declared parameters hands the handler: one object for every call, not one each.
const NONE: Record<string, unknown> = Object.freeze({});

export type InputCheck = (
  message: RequestMessage,
) => { ok: true; input: CheckedInput } | { ok: false; message: string; problems: RequestProblem[] };

function compileParameters(operation: ContractOperation, location: Location, ajv: Ajv): ValidateFunction | undefined {
  const own = operation.parameters[location];
  if (own.length === 0) return undefined;
  return ajv.compile({
    type: 'object',
    properties: Object.fromEntries(own.map((parameter) => [parameter.name, parameter.schema ?? {}])),
    required: own.filter((parameter) => parameter.required).map((parameter) => parameter.name),
  });
}

/** The declared parameters of a location, read from the message (header names are lower case on the wire). */
function readParameters(
  operation: ContractOperation,
  location: Location,
  message: RequestMessage,
): Record<string, unknown> {
  const { uri, query } = message.request.parameters;
  const values: Record<string, unknown> = {};
  for (const { name } of operation.parameters[location]) {
    const value =
      location === 'path'
        ? uri[name]
        : location === 'query'
          ? query[name]
          : message.request.headers[name.toLowerCase()];
    if (value !== undefined) values[name] = value;
  }
  return values;
}

const readMediaType = (message: RequestMessage): string =>
  String(message.request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();

function toProblems(location: string, errors: ValidateFunction['errors']): RequestProblem[] {
  return (errors ?? []).map((error) => {
    const missing = (error.params as { missingProperty?: string }).missingProperty;
    if (location === 'body') return { location: `body${error.instancePath}`, message: error.message ?? 'is invalid' };
    const name = missing ?? error.instancePath.split('/')[1] ?? '';
    return { location: `${location}.${name}`, message: missing ? 'is required' : (error.message ?? 'is invalid') };
  });
}

function compileOperation(operation: ContractOperation, ajv: { params: Ajv; body: Ajv; bodyFirst: Ajv }): InputCheck {
  const parameters = LOCATIONS.map((location) => ({
    location,
    validate: compileParameters(operation, location, ajv.params),
  }));
  const content = operation.requestBody?.content ?? {};
  const jsonType = Object.keys(content).find(isJsonMediaType);
  const schema = jsonType === undefined ? undefined : content[jsonType].schema;
  const body: ValidatorPair<ValidateFunction> | undefined =
    schema === undefined ? undefined : { first: ajv.bodyFirst.compile(schema), all: ajv.body.compile(schema) };
  const onlyJson = Object.keys(content).length > 0 && Object.keys(content).every(isJsonMediaType);

  const declared = parameters.filter(({ location }) => operation.parameters[location].length > 0);
  return (message) => {
    const problems: RequestProblem[] = [];
    const input: CheckedInput = { params: NONE, query: NONE, headers: NONE, body: undefined, message };
    for (const { location, validate } of declared) {
      // Coercion turns "7" into 7 on this copy: the handler gets the values as their schemas type them.
      const values = readParameters(operation, location, message);
      if (validate && !validate(values)) problems.push(...toProblems(location, validate.errors));
      input[location === 'path' ? 'params' : location === 'header' ? 'headers' : 'query'] = values;
    }
    let partial = false;
    const { body: text, bodyEncoding } = message.request;
    if (text === '') {
      if (operation.requestBody?.required) problems.push({ location: 'body', message: 'is required' });
    } else if (jsonType !== undefined && isJsonMediaType(readMediaType(message)) && bodyEncoding !== 'base64') {
      if (isNestedDeeperThan(text, MAX_JSON_DEPTH)) problems.push(REQUEST_MISTAKES.jsonTooDeep.problem);
      else {
        try {
          input.body = JSON.parse(text);
          if (body) {
            const found = findSchemaErrors(body, input.body, text.length);
            problems.push(...toProblems('body', found.errors));
            partial = found.partial;
          }
        } catch {
          problems.push(REQUEST_MISTAKES.malformedJson.problem);
        }
      }
    } else if (onlyJson) {
      problems.push(REQUEST_MISTAKES.notJson.problem);
    } else {
      input.body = text; // a body of another type goes to the handler as it came
    }
    if (problems.length === 0) return { ok: true, input };
    return {
      ok: false,
      ...describeRequestProblems('the request does not match the API description', problems, partial),
    };
  };
}

/**
 * Compiles, once, a check of every operation's input against its schemas: path, query and header parameters
 * (coerced from text, as the gateway's --validate does) and a JSON body (every problem listed, the first only of a
 * body over LISTED_TEXT_LENGTH). OAS 3.1 schemas are JSON Schema 2020-12, the others draft-07 with `nullable`.
 */
export function compileInputChecks(contract: Contract): Map<string, InputCheck> {
  const code = { regExp: linearPatternEngine };
  const params = { allErrors: true, strict: false, coerceTypes: 'array', validateFormats: false, code } as const;
  const bodyOptions = { allErrors: true, strict: false, validateFormats: false, code } as const;
  const make = (options: object): Ajv => {
    const ajv = addLinearUniqueItems(contract.dialect === '3.1' ? new Ajv2020(options) : new Ajv(options));
    if (contract.schemaRoot) ajv.addSchema({ ...contract.schemaRoot, $id: CONTRACT_SCHEMA_ROOT_ID });
    return ajv;
  };
  const ajv = { params: make(params), body: make(bodyOptions), bodyFirst: make({ ...bodyOptions, allErrors: false }) };
  return new Map(contract.operations.map((operation) => [operation.name, compileOperation(operation, ajv)]));
}
