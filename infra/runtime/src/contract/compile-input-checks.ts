import type { ValidateFunction } from 'ajv';
import { RestbusError, type RequestProblem } from '../errors/restbus-error';
import { REQUEST_MISTAKES } from '../errors/request-mistakes';
import { isJsonMediaType } from '../http/is-json-media-type';
import { addRequestFormats } from '../validation/add-request-formats';
import { createSchemaCompilers, type SchemaCompilers, type SchemaDialect } from '../validation/create-schema-compilers';
import { describeRequestProblems, findSchemaErrors, type ValidatorPair } from '../validation/find-schema-errors';
import { MAX_JSON_DEPTH } from '../limits/max-json-depth';
import { isNestedDeeperThan } from '../wire/find-json-depth';
import { parseJsonInSlices } from '../wire/parse-json-in-slices';
import { readCallerIdentity } from '../wire/read-caller-identity';
import type { CallerIdentity, IncomingRequest, RequestMessage } from '../wire/types';
import { CONTRACT_SCHEMA_ROOT_ID, type Contract, type ContractOperation } from './contract';

const LOCATIONS = ['path', 'query', 'header'] as const;
type Location = (typeof LOCATIONS)[number];

/** The input of a call, checked: parameters coerced to their schemas' types, the body parsed; and the message. */
export interface CheckedInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  /** Who called, as the gateway verified it (--auth verify): see readCallerIdentity. */
  caller?: CallerIdentity;
  message: RequestMessage;
}

/** What an input check concludes: the input as the handler gets it, or the problems a 400 lists. */
export type InputResult<I = Omit<CheckedInput, 'message'>> =
  { ok: true; input: I } | { ok: false; message: string; problems: RequestProblem[] };

/** What an input check reads of an operation: a ContractOperation, or @restbus/openapi's ApiOperation as it is. */
export type InputOperation = Pick<ContractOperation, 'parameters' | 'requestBody'>;

/** The check of one operation's input (see compileInputCheck). */
export interface OperationInputCheck {
  /** Parses a JSON body at once: for a service, whose bodies the gateway bounded. */
  (request: IncomingRequest): InputResult;
  /** Parses a large JSON body a slice at a time, serving other clients between the slices: for the gateway. */
  inSlices(request: IncomingRequest): Promise<InputResult>;
}

/** The two sets of ajv instances an input is checked with: parameters (text, coerced) and bodies (JSON, as sent). */
export interface InputCompilers {
  params: SchemaCompilers;
  body: SchemaCompilers;
}

/**
 * The compilers of input checks for a dialect, whose schemas they read as it means them (adaptOpenApiSchema);
 * `schemas`: what `$ref`s resolve against, by id; `root`: the document a cycle's `#/…` `$ref`s point into. Formats
 * are checked (addRequestFormats, OpenAPI's own too) in parameters and bodies alike: a `date` that is no date is
 * refused before a handler parses it, as Prism refuses it.
 */
export function createInputCompilers(
  dialect: SchemaDialect,
  schemas?: Readonly<Record<string, object>>,
  root?: object,
): InputCompilers {
  const shared = { addFormats: addRequestFormats, schemas, root };
  return {
    params: createSchemaCompilers(dialect, { ...shared, coerceTypes: 'array' }),
    body: createSchemaCompilers(dialect, shared),
  };
}

// What a location without declared parameters hands the handler: one object for every call, not one each.
const NONE: Record<string, unknown> = Object.freeze({});

const MESSAGE = 'the request does not match the API description';

// What a refused empty value is told: the words of the gateway's form check for a 2.0 formData field.
const NOT_EMPTY = 'must not be empty';

const isEmptyValue = (value: unknown): boolean => (Array.isArray(value) ? value.includes('') : value === '');

// Header names arrive in lower case: headers are checked, and their problems named, by the lower-case name.
const checkedName = (location: Location, name: string): string => (location === 'header' ? name.toLowerCase() : name);

interface CompiledParameters {
  location: Location;
  /** Declared name and the name it is checked under. */
  names: Array<[declared: string, checked: string]>;
  /** The names (as checked) whose empty value is refused (ContractParameter's `allowEmptyValue: false`). */
  notEmpty: string[];
  validate: ValidateFunction;
}

function compileParameters(operation: InputOperation, ajv: SchemaCompilers): CompiledParameters[] {
  return LOCATIONS.filter((location) => operation.parameters[location].length > 0).map((location) => {
    const own = operation.parameters[location];
    const name = (parameter: { name: string }): string => checkedName(location, parameter.name);
    return {
      location,
      names: own.map((parameter) => [parameter.name, name(parameter)]),
      notEmpty: own.filter((parameter) => parameter.allowEmptyValue === false).map(name),
      validate: ajv.compile({
        type: 'object',
        // A parameter written with `content` (or with no schema) takes any value.
        properties: Object.fromEntries(own.map((parameter) => [name(parameter), parameter.schema ?? {}])),
        required: own.filter((parameter) => parameter.required).map(name),
      }),
    };
  });
}

function toProblems(location: string, errors: ValidateFunction['errors']): RequestProblem[] {
  return (errors ?? []).map((error) => {
    const named: unknown = error.params.missingProperty;
    const missing = typeof named === 'string' ? named : undefined;
    if (location === 'body') return { location: `body${error.instancePath}`, message: error.message ?? 'is invalid' };
    const name = missing ?? error.instancePath.split('/')[1] ?? '';
    return { location: `${location}.${name}`, message: missing ? 'is required' : (error.message ?? 'is invalid') };
  });
}

const readMediaType = (request: IncomingRequest): string =>
  String(request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();

/** The state of a check once all but the parse of a JSON body is done. */
interface Started {
  problems: RequestProblem[];
  input: Omit<CheckedInput, 'message'>;
  /** The JSON text to parse and check, when there is one to. */
  json?: string;
}

/**
 * Compiles the check of one operation's input against its schemas: path, query and header parameters (declared
 * ones only, coerced from text: "7" is the handler's 7; an empty value refused where the parameter does not allow
 * one, Swagger 2's query rule) and a JSON body (parsed; every problem listed, the first only of a body over
 * LISTED_TEXT_LENGTH; too deep, not JSON or JSON sent as another type refused as REQUEST_MISTAKES says). The
 * gateway's --validate and the generated services' runtime check with it. Throws what ajv throws on a schema it
 * cannot compile.
 */
export function compileInputCheck(operation: InputOperation, compilers: InputCompilers): OperationInputCheck {
  const parameters = compileParameters(operation, compilers.params);
  const content = operation.requestBody?.content ?? {};
  const types = Object.keys(content);
  const jsonType = types.find(isJsonMediaType);
  const schema = jsonType === undefined ? undefined : content[jsonType].schema;
  const body: ValidatorPair<ValidateFunction> | undefined =
    schema === undefined ? undefined : compilers.body.compilePair(schema);
  const onlyJson = types.length > 0 && types.every(isJsonMediaType);
  const required = operation.requestBody?.required === true;

  const start = (request: IncomingRequest): Started => {
    const problems: RequestProblem[] = [];
    const input: Started['input'] = { params: NONE, query: NONE, headers: NONE, body: undefined };
    const sources = { path: request.parameters.uri, query: request.parameters.query, header: request.headers };
    for (const { location, names, notEmpty, validate } of parameters) {
      const source: Record<string, unknown> = sources[location];
      // No prototype, and only the source's own values: ajv reads inherited properties, so a parameter named
      // toString or constructor that the client did not send would otherwise be checked as a function.
      const values: Record<string, unknown> = Object.create(null);
      for (const [, checked] of names) {
        if (Object.hasOwn(source, checked) && source[checked] !== undefined) values[checked] = source[checked];
      }
      // Swagger 2: `?name=` (or `?name`) is a value only where the parameter allows it; a repeat counts each value.
      for (const checked of notEmpty) {
        if (isEmptyValue(values[checked])) problems.push({ location: `${location}.${checked}`, message: NOT_EMPTY });
      }
      // Coercion turns "7" into 7 on this copy: the handler gets the values as their schemas type them.
      if (!validate(values)) problems.push(...toProblems(location, validate.errors));
      if (location === 'header') {
        const byDeclared: Record<string, unknown> = Object.create(null);
        for (const [declared, checked] of names) if (checked in values) byDeclared[declared] = values[checked];
        input.headers = byDeclared;
      } else input[location === 'path' ? 'params' : 'query'] = values;
    }
    const { body: text, bodyEncoding } = request;
    if (text === '') {
      if (required) problems.push({ location: 'body', message: 'is required' });
    } else if (jsonType !== undefined && isJsonMediaType(readMediaType(request))) {
      // Bytes that are not UTF-8 came as base64: JSON is UTF-8, so they are no JSON.
      if (bodyEncoding === 'base64') problems.push(REQUEST_MISTAKES.malformedJson.problem);
      // Deeper than any API needs, and a stack a parse, a check or a copy would overflow.
      else if (isNestedDeeperThan(text, MAX_JSON_DEPTH)) problems.push(REQUEST_MISTAKES.jsonTooDeep.problem);
      else return { problems, input, json: text };
    } else if (onlyJson) {
      // The gateway, the services and the mock server give one answer for a JSON body sent as another type.
      problems.push(REQUEST_MISTAKES.notJson.problem);
    } else {
      input.body = text; // a body of another type goes to the handler as it came
    }
    return { problems, input };
  };

  const finish = ({ problems, input, json }: Started, parsed: { value: unknown } | undefined): InputResult => {
    let partial = false;
    if (json !== undefined) {
      if (!parsed) problems.push(REQUEST_MISTAKES.malformedJson.problem);
      else {
        input.body = parsed.value;
        if (body) {
          const found = findSchemaErrors(body, parsed.value, json.length);
          problems.push(...toProblems('body', found.errors));
          partial = found.partial;
        }
      }
    }
    if (problems.length === 0) return { ok: true, input };
    return { ok: false, ...describeRequestProblems(MESSAGE, problems, partial) };
  };

  const check = (request: IncomingRequest): InputResult => {
    const started = start(request);
    if (started.json === undefined) return finish(started, undefined);
    let parsed: { value: unknown } | undefined;
    try {
      parsed = { value: JSON.parse(started.json) };
    } catch {
      parsed = undefined;
    }
    return finish(started, parsed);
  };
  check.inSlices = async (request: IncomingRequest): Promise<InputResult> => {
    const started = start(request);
    if (started.json === undefined) return finish(started, undefined);
    const parsed = await parseJsonInSlices(started.json).then(
      (value: unknown) => ({ value }),
      () => undefined,
    );
    return finish(started, parsed);
  };
  return check;
}

export type InputCheck = (message: RequestMessage) => InputResult<CheckedInput>;

/**
 * Compiles, once, a check of every operation's input against its schemas (compileInputCheck). OAS 3.1 schemas are
 * JSON Schema 2020-12, the others as their dialect means them (adaptOpenApiSchema); a cycle's `$ref`s resolve
 * against the contract's schemaRoot. Throws OPENAPI_INVALID, naming the operation, when a schema cannot be compiled:
 * a service does not start passing calls it cannot check.
 */
export function compileInputChecks(contract: Contract): Map<string, InputCheck> {
  const schemas = contract.schemaRoot ? { [CONTRACT_SCHEMA_ROOT_ID]: contract.schemaRoot } : undefined;
  const compilers = createInputCompilers(contract.dialect, schemas);
  return new Map(
    contract.operations.map((operation): [string, InputCheck] => {
      let check: OperationInputCheck;
      try {
        check = compileInputCheck(operation, compilers);
      } catch (err) {
        // A service that would pass calls it cannot check does not start: the contract's schema is to be fixed.
        const reason = err instanceof Error ? err.message : String(err);
        throw new RestbusError(
          'OPENAPI_INVALID',
          `operation ${operation.name}: its input cannot be checked: ${reason}`,
          {
            cause: err,
          },
        );
      }
      return [
        operation.name,
        (message) => {
          const result = check(message.request);
          if (!result.ok) return result;
          const caller = readCallerIdentity(message.request);
          return { ok: true, input: { ...result.input, ...(caller && { caller }), message } };
        },
      ];
    }),
  );
}
