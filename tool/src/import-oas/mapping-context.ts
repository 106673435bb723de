import type { JsonObject } from '@restbus/infra';
import type { Dialect } from '@restbus/openapi';
import type { Refs } from './refs';
import { toJsonSchema, type Schema } from './to-json-schema';

/** What a project has gathered of an import: shown in its summary. */
export interface ImportCounts {
  methods: number;
  parameters: number;
  responses: number;
  mockFiles: number;
  schemaFiles: number;
  testCases: number;
}

/** What mapping an OpenAPI document's parts needs: the document, its `$ref`s, where warnings and counts go. */
export interface MappingContext {
  document: JsonObject;
  dialect: Dialect;
  refs: Refs;
  /** Says what could not be mapped (prefixed with the file). */
  warn(text: string): void;
  counts: ImportCounts;
}

/** A schema of the document as a self-contained JSON Schema 2020-12 document (see toJsonSchema). */
export const schemaOf = (context: MappingContext, schema: unknown): Schema =>
  toJsonSchema(schema, context.refs, context.dialect);

/** A value as a header's content: text as it is, anything else as JSON. */
export const toHeaderText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** What Node sends as a header value (latin-1, no control characters but tab). */
export const isHeaderText = (text: string): boolean => /^[\t\x20-\x7e\x80-\xff]*$/.test(text);
