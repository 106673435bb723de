import type { Handler } from '../executive/adapt-handler';
import type { Endpoint } from '../executive/create-executive';
import { RestbusError } from '../errors/restbus-error';
import { compileInputChecks, createInputCompilers } from './compile-input-checks';
import type { Contract, ContractOperation } from './contract';
import { createContractEndpoints, type ContractEndpointsOptions } from './create-contract-endpoints';
import { readErrorMessage } from '../errors/read-caught-error';

/**
 * The path (`/requestBody/content/…`) of the first object in `value`, depth first, that `test` finds wrong, or
 * `undefined`. Each object is visited once: a contract's schemas may share objects.
 */
function findObject(
  value: unknown,
  path: string,
  test: (object: object) => boolean,
  seen = new Set<object>(),
): string | undefined {
  if (value === null || typeof value !== 'object' || seen.has(value)) return undefined;
  seen.add(value);
  if (test(value)) return path;
  for (const [key, item] of Object.entries(value)) {
    const found = findObject(item, `${path}/${key}`, test, seen);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * An object whose prototype is not a plain object's: `{ "__proto__": {…} }` written in an object literal (a
 * generator's key, or a hand-written contract's) makes the prototype of what should have been a property, and the
 * check that property stood for is silently gone. Any realm's Object.prototype (no prototype of its own, no
 * enumerable key) or none is plain.
 */
const hasChangedPrototype = (object: object): boolean => {
  if (Array.isArray(object)) return false;
  const prototype: unknown = Object.getPrototypeOf(object);
  return (
    typeof prototype === 'object' &&
    prototype !== null &&
    (Object.getPrototypeOf(prototype) !== null || Object.keys(prototype).length > 0)
  );
};

/** A schema declaring a property `__proto__`, which ajv never checks (it skips the name, against prototype pollution). */
const declaresProtoProperty = (object: object): boolean => {
  const properties: unknown = Reflect.get(object, 'properties');
  return properties !== null && typeof properties === 'object' && Object.hasOwn(properties, '__proto__');
};

/** A schema requiring a property every object inherits (`constructor`, `toString`). */
const requiresInherited = (object: object): boolean => {
  const required: unknown = Reflect.get(object, 'required');
  return Array.isArray(required) && required.some((name) => typeof name === 'string' && name in {});
};

/** The first object of an operation, or of the contract's schemaRoot, that `test` finds wrong. */
const findInOperation = (operation: ContractOperation, contract: Contract, test: (object: object) => boolean) =>
  findObject(operation, '', test) ?? findObject(contract.schemaRoot, '/schemaRoot', test);

/**
 * Whether the body checker takes a property an object inherits for one it has: then `required: [toString]` passes
 * `{}`. Asked of the checker itself, so that one set to read own properties only is not refused.
 */
const readsInherited = (contract: Contract): boolean =>
  createInputCompilers(contract.dialect).body.compile({ type: 'object', required: ['toString'] })({}) === true;

/**
 * Why an operation's input cannot be checked as its contract says, or `undefined`. `readsInherited` is asked (and
 * compiles its probe) only for a contract that requires an inherited name.
 */
function findUncheckable(
  operation: ContractOperation,
  contract: Contract,
  readsInherited: () => boolean,
): string | undefined {
  const changed = findInOperation(operation, contract, hasChangedPrototype);
  if (changed !== undefined) {
    return `an object at ${changed || '/'} has a prototype where a property was meant (a "__proto__" key written in an object literal)`;
  }
  const proto = findInOperation(operation, contract, declaresProtoProperty);
  if (proto !== undefined)
    return `the schema at ${proto}/properties declares a property "__proto__", which is never checked`;
  const inherited = findInOperation(operation, contract, requiresInherited);
  if (inherited !== undefined && readsInherited()) {
    return `the schema at ${inherited}/required requires a property every object inherits, which the checker takes as present`;
  }
  for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
    const schema: unknown = typeof media === 'object' && media !== null ? Reflect.get(media, 'schema') : undefined;
    if (media === null || typeof media !== 'object' || !['undefined', 'object', 'boolean'].includes(typeof schema)) {
      return `the body of type ${JSON.stringify(type)} has no schema it can be checked with`;
    }
    if (schema === null) return `the body of type ${JSON.stringify(type)} has a null schema`;
  }
  return undefined;
}

/** Why an operation's schemas do not compile (asked only once the contract's did not), or `undefined`. */
function findUncompilable(operation: ContractOperation, contract: Contract): string | undefined {
  try {
    compileInputChecks({ ...contract, operations: [operation] });
    return undefined;
  } catch (err) {
    return `its schemas do not compile: ${readErrorMessage(err)}`;
  }
}

/** The error a service that cannot check an operation's input stops with: each such operation named. */
function refuseUncheckable(
  contract: Contract,
  find: (operation: ContractOperation) => string | undefined,
): RestbusError | undefined {
  const lines = contract.operations.flatMap((operation) => {
    const why = find(operation);
    return why === undefined ? [] : [`the operation ${JSON.stringify(operation.name)} cannot be checked: ${why}`];
  });
  if (lines.length === 0) return undefined;
  return new RestbusError(
    'OPENAPI_INVALID',
    `the contract's input checks are not what it declares:\n${lines.join('\n')}`,
  );
}

/** The handler of each operation by its name, among the object's own properties or its class's, never Object's. */
function pickHandlers(
  contract: Contract,
  handlers: ContractEndpointsOptions['handlers'],
): ContractEndpointsOptions['handlers'] {
  const picked: Record<string, ContractEndpointsOptions['handlers'][string]> = Object.create(null);
  for (const { name } of contract.operations) {
    const handler = handlers[name];
    if (Object.hasOwn(handlers, name) || handler !== Reflect.get(Object.prototype, name)) picked[name] = handler;
  }
  return picked;
}

/**
 * createContractEndpoints for a service that is about to start: it does not start when it cannot check an input as
 * its contract declares (an object whose prototype stands where a property was written, a property `__proto__`, a
 * required `constructor` the checker finds on every object, a body with no schema, a schema that does not compile),
 * naming each operation. An operation named `constructor` or `toString` has no handler unless one is given:
 * Object's own methods are never taken for one.
 */
export function createCheckedEndpoints(
  options: ContractEndpointsOptions,
): Array<{ endpoint: Endpoint; handler: Handler }> {
  const { contract } = options;
  let inherited: boolean | undefined;
  const probe = (): boolean => (inherited ??= readsInherited(contract));
  const refused = refuseUncheckable(contract, (operation) => findUncheckable(operation, contract, probe));
  if (refused) throw refused;
  const handlers = pickHandlers(contract, options.handlers);
  try {
    return createContractEndpoints({ ...options, handlers });
  } catch (err) {
    // ajv's error names a schema, not the operation: each is compiled alone to say which (only once one failed).
    throw (
      (err instanceof Error && err.message.startsWith('no handler for')
        ? undefined
        : refuseUncheckable(contract, (operation) => findUncompilable(operation, contract))) ?? err
    );
  }
}
