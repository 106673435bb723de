import type { HttpMethod } from '../wire/types';

/** A JSON Schema as the document writes it (dereferenced; a cycle's `$ref`s point into the contract's schemaRoot). */
export type ContractSchema = Readonly<Record<string, unknown>> | boolean;

export interface ContractParameter {
  name: string;
  required: boolean;
  schema?: ContractSchema;
  /**
   * False: an empty value (`?name=`) is refused, whatever its schema says: Swagger 2.0's rule for a query parameter
   * that does not write `allowEmptyValue: true`. True or absent: its schema alone judges it (OpenAPI 3.x's deprecated
   * `allowEmptyValue` is not read, as Prism does not read it).
   */
  allowEmptyValue?: boolean;
}

/**
 * What a service needs of one operation to bind and check its calls: a structural subset of @restbus/openapi's
 * ApiOperation, so that a generator can write it as data and a loaded model can be handed over as it is.
 */
export interface ContractOperation {
  /** The handler's key: the operationId, or the name made from method and path (@restbus/openapi nameOperation). */
  name: string;
  operationId?: string;
  method: HttpMethod;
  /** The path template as the document writes it (`/persons/{personId}`). */
  path: string;
  /** The operation's `x-restbus-subject`; without it the subject is `toTopic(topicPrefix, method, path)`. */
  subjectOverride?: string;
  parameters: Readonly<Record<'path' | 'query' | 'header', readonly ContractParameter[]>>;
  requestBody?: { required: boolean; content: Readonly<Record<string, { schema?: ContractSchema }>> };
  /**
   * The media types each declared response may be sent with, by its key as written (`200`, `4XX`, `default`): a
   * reply whose handler names no content-type is sent with the one its status declares (createDeclaredContentType).
   */
  responses?: Readonly<Record<string, readonly string[]>>;
}

/** The part of an OpenAPI document a generated service carries. */
export interface Contract {
  title: string;
  version: string;
  /** Which JSON Schema dialect the schemas speak: OAS 3.1 is 2020-12, the others draft-07 with `nullable`. */
  dialect: '2.0' | '3.0' | '3.1';
  operations: readonly ContractOperation[];
  /**
   * What a cycle's `$ref`s resolve against: they are written `restbus-api.json#/components/schemas/Node`, and this
   * is registered under that id. Absent when no schema has a cycle.
   */
  schemaRoot?: Readonly<Record<string, unknown>>;
}

/** The id a contract's schemaRoot is registered under; a generator writes cyclic `$ref`s against it. */
export const CONTRACT_SCHEMA_ROOT_ID = 'restbus-api.json';
