import { CONTRACT_SCHEMA_ROOT_ID, type Contract, type ContractOperation, type JsonObject } from '@restbus/infra';
import type { ApiModel, ApiOperation, JsonSchema } from '@restbus/openapi';
import { toPropertyKey } from './to-property-key';
import { toSourceLiteral, toStringLiteral } from './to-source-literal';

/** The JSON of a pointer's target in the document (`#/components/schemas/Node`). */
function resolvePointer(root: object, pointer: string): unknown {
  return pointer
    .slice(2)
    .split('/')
    .filter((token) => token !== '')
    .map((token) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      // Own keys only: `__proto__` or `constructor` in a pointer is a schema's name, never Object's. An array's
      // items are its own keys too (`/allOf/0`).
      (node, token) =>
        node !== null && typeof node === 'object' ? Object.getOwnPropertyDescriptor(node, token)?.value : undefined,
      root,
    );
}

/** Sets a property as JSON.parse would: `__proto__` a key like any other, not the prototype. */
const defineOwn = (object: object, key: string, value: unknown): void => {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
};

/**
 * The schemas as data: a cycle's `$ref`s (left by the dereference) are rewritten to point into the contract's
 * schemaRoot, which gets every target they reach.
 */
function createSchemaWriter(model: ApiModel): {
  write(schema: JsonSchema | undefined): JsonSchema | undefined;
  root(): JsonObject | undefined;
} {
  const targets = new Map<string, unknown>();
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    return node === null || typeof node !== 'object' ? node : rewriteObject(node);
  };
  const rewriteObject = (node: object): JsonObject => {
    const copy: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#')) {
        if (!targets.has(value)) {
          targets.set(value, undefined);
          targets.set(value, rewrite(resolvePointer(model.schemaRoot, value)));
        }
        copy[key] = `${CONTRACT_SCHEMA_ROOT_ID}${value}`;
      } else defineOwn(copy, key, rewrite(value));
    }
    return copy;
  };
  return {
    write: (schema) => (schema === undefined || typeof schema === 'boolean' ? schema : rewriteObject(schema)),
    root() {
      if (targets.size === 0) return undefined;
      const root: JsonObject = {};
      for (const [pointer, target] of targets) {
        const tokens = pointer
          .slice(2)
          .split('/')
          .map((token) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~'));
        let node: object = root;
        for (const token of tokens.slice(0, -1)) {
          if (!Object.hasOwn(node, token)) defineOwn(node, token, {});
          const next: unknown = Object.getOwnPropertyDescriptor(node, token)?.value;
          // A target's copy is an object (or an array) where a longer pointer goes on into it.
          node = next !== null && typeof next === 'object' ? next : {};
        }
        defineOwn(node, tokens[tokens.length - 1], target);
      }
      return root;
    },
  };
}

function toContractOperation(
  operation: ApiOperation,
  write: (schema?: JsonSchema) => JsonSchema | undefined,
): ContractOperation {
  const override = operation.extensions['x-restbus-subject'];
  const parameters = (location: 'path' | 'query' | 'header') =>
    operation.parameters[location].map((parameter) => ({
      name: parameter.name,
      required: parameter.required,
      ...(write(parameter.schema ?? parameter.content?.schema) !== undefined && {
        schema: write(parameter.schema ?? parameter.content?.schema),
      }),
      // Swagger 2's query parameters say whether `?name=` is a value: the service refuses it as the gateway does.
      ...(parameter.allowEmptyValue !== undefined && { allowEmptyValue: parameter.allowEmptyValue }),
    }));
  return {
    name: operation.name,
    ...(operation.operationId !== undefined && { operationId: operation.operationId }),
    method: operation.method,
    path: operation.path,
    ...(typeof override === 'string' && override !== '' && { subjectOverride: override }),
    parameters: { path: parameters('path'), query: parameters('query'), header: parameters('header') },
    ...(operation.requestBody && {
      requestBody: {
        required: operation.requestBody.required,
        content: Object.fromEntries(
          Object.entries(operation.requestBody.content).map(([type, media]) => [
            type,
            media.schema === undefined ? {} : { schema: write(media.schema) },
          ]),
        ),
      },
    }),
    // Each declared response's media types: the runtime sends a reply with the one its status declares.
    ...(operation.responses.length > 0 && {
      responses: Object.fromEntries(operation.responses.map(({ status, content }) => [status, Object.keys(content)])),
    }),
  };
}

/** The contract data of a model: what the runtime binds and checks calls with. */
export function toContract(model: ApiModel): Contract {
  const writer = createSchemaWriter(model);
  const operations = model.operations.map((operation) => toContractOperation(operation, writer.write));
  const schemaRoot = writer.root();
  return {
    title: model.title,
    version: model.version,
    dialect: model.dialect,
    operations,
    ...(schemaRoot && { schemaRoot }),
  };
}

/**
 * contract.ts: the contract as data, the `Operations` type naming each operation's openapi-typescript type, the
 * `Handlers` a service must give, `register` (a startup function of the executive) and `createClient`. The
 * document's texts are in it only as string literals (toSourceLiteral), none in a comment.
 */
export function renderContract(model: ApiModel): string {
  const contract = toContract(model);
  const operations = model.operations
    .map(
      (operation) =>
        `  ${toPropertyKey(operation.name)}: paths[${toStringLiteral(operation.path)}][${toStringLiteral(operation.method)}];`,
    )
    .join('\n');
  return `// Generated by rest-tool generate-service: do not edit, it is rewritten on every run.
import {
  createContractClient,
  serveContract,
  type Contract,
  type ContractClient,
  type ContractHandlers,
  type RefuseInput,
  type ServiceContext,
  type Startup,
} from '@restbus/infra';
import type { NatsConnection } from 'nats';
import type { paths } from './api-types';

/** Each operation of the document by its name (operationId, or made from method and path). */
export interface Operations {
${operations}
}

/** The handlers a service gives: one per operation, typed by its parameters, body and declared replies. */
export type Handlers = ContractHandlers<Operations>;

export const contract: Contract = ${toSourceLiteral(contract)};

/**
 * The executive's startup function that serves every operation of the contract on its subject, as endpoints of the
 * executive's one NATS service, each call checked against the operation's schemas before its handler runs
 * (\`refuseInput\` words the 400 of a call that breaks them; \`400 REQUEST_INVALID\` with every problem by default).
 */
export function register<C = object>(
  createHandlers: (context: ServiceContext<C>) => Handlers | Promise<Handlers>,
  options: { refuseInput?: RefuseInput } = {},
): Startup<C> {
  return serveContract<C>({ ...options, contract, createHandlers });
}

/** A typed client of the service over NATS: one method per operation, resolving with the service's reply. */
export function createClient(nc: NatsConnection, topicPrefix: string, timeout?: number): ContractClient<Operations> {
  return createContractClient({ nc, topicPrefix, contract, timeout }) as unknown as ContractClient<Operations>;
}
`;
}
