import type { HttpMethod } from '@restbus/infra';

/** Which schema dialect a document's schemas speak: Swagger 2.0, OpenAPI 3.0, or 3.1 (3.2 is read as 3.1). */
export type Dialect = '2.0' | '3.0' | '3.1';

/**
 * A schema of the document, dereferenced: a JSON Schema object (or boolean in 3.1) handed to ajv, the sampler or a
 * type generator as it is. A cycle's `$ref`s are left in place and resolve against the document's `schemaRoot`.
 * The model does not look inside schemas: that is what JSON Schema tools are for.
 */
export type JsonSchema = Readonly<Record<string, unknown>> | boolean;

/** An example written in the document: its name (`default` for a lone `example`) and value. */
export interface ApiExample {
  name: string;
  value: unknown;
  summary?: string;
}

/**
 * How one field of a form body is written (3.x's Encoding object): the media types its multipart part may have, and
 * how a URL-encoded field's text stands for a list or an object. Swagger 2's `formData` parameters give theirs too:
 * `collectionFormat` as `style`/`explode`, and `allowEmptyValue` (false when not written: 2.0 refuses an empty value
 * then; 3.x has no such member in an encoding).
 */
export interface ApiEncoding {
  /** As written: one media type or a comma-separated list, wildcards (`image/*`) allowed. */
  contentType?: string;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
  allowEmptyValue?: boolean;
}

/** A body in one media type: its schema and the examples written for it, in document order. */
export interface ApiMedia {
  schema?: JsonSchema;
  /** OAS 3.2 sequential media types: the schema of one item (one event). Read in 3.0 and 3.1 documents too. */
  itemSchema?: JsonSchema;
  /** A form body's encodings, by field name; absent when none is written. */
  encoding?: Record<string, ApiEncoding>;
  examples: ApiExample[];
}

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/**
 * A parameter, with path item and operation parameters merged (the operation's wins). Swagger 2's inline `type`,
 * `format`, `items`, `enum` … are gathered into `schema`; its `collectionFormat` becomes `style`/`explode`.
 */
export interface ApiParameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  schema?: JsonSchema;
  /** The media type and schema of a parameter written with `content` (3.x) instead of `schema`. */
  content?: { mediaType: string; schema?: JsonSchema };
  style?: string;
  explode?: boolean;
  /**
   * Whether an empty value (`?name=`) is allowed before its schema is read: Swagger 2's query parameters always say
   * (false when not written: 2.0 refuses an empty value then); 3.x's only when written true (deprecated there).
   */
  allowEmptyValue?: boolean;
  allowReserved?: boolean;
  deprecated?: boolean;
  description?: string;
  examples: ApiExample[];
}

/**
 * The request body by media type. Swagger 2's `in: body` parameter gives one entry per `consumes` type (JSON when
 * none); its `formData` parameters give an object schema under the form types it consumes.
 */
export interface ApiRequestBody {
  required: boolean;
  description?: string;
  content: Record<string, ApiMedia>;
}

export interface ApiHeader {
  required: boolean;
  schema?: JsonSchema;
  description?: string;
  /** 3.x `example` / `examples` as a parameter's; Swagger 2 `example` (`default`), then `x-example`. */
  examples: ApiExample[];
}

/**
 * One declared response. `status` is a code (`200`), a range (`2XX`, upper case) or `default`; `key` is the member
 * of `responses` as written (`2xx`), to place messages at its line.
 * Swagger 2's single `schema` is given for each `produces` type (JSON when none), its `examples` by type; a response
 * with neither has no content.
 */
export interface ApiResponse {
  status: string;
  key: string;
  description?: string;
  content: Record<string, ApiMedia>;
  headers: Record<string, ApiHeader>;
}

/** A security scheme as declared (`components.securitySchemes`, or Swagger 2's `securityDefinitions`). */
export interface ApiSecurityScheme {
  /** `apiKey`, `http`, `oauth2`, `openIdConnect`, `mutualTLS`, or Swagger 2's `basic`. */
  type: string;
  /** `apiKey`: the header, query parameter or cookie name. */
  name?: string;
  /**
   * `apiKey`: where the key goes, as written: `header`, `query`, `cookie`, or what else a document says (`path`
   * cannot be checked); absent when not written.
   */
  in?: string;
  /** `http`: the scheme (`basic`, `bearer` …), lower case. */
  scheme?: string;
  /** `http` bearer: what the token is, as written (`JWT`); a hint, never checked by the document's readers. */
  bearerFormat?: string;
  /** `openIdConnect`: the discovery document's URL, as written. */
  openIdConnectUrl?: string;
  /** The scheme's own `x-` members (`x-restbus-jwt` says how the gateway verifies its tokens). */
  extensions: Record<string, unknown>;
  /** Where it is declared: the document's file and the path to the scheme in it, to place messages at a line. */
  source: { file: string; pointer: Array<string | number> };
}

/** One scheme of a requirement: its name, its declaration (undefined when the document does not declare it), scopes. */
export interface ApiSecurityUse {
  name: string;
  scheme?: ApiSecurityScheme;
  scopes: string[];
}

/**
 * An event stream an operation declares (`x-restbus-stream: {subject, stream?}`). Whether the subject and the stream
 * name can be used is checkRoutes' to say.
 */
export interface ApiStream {
  /** Subject template as written, with `{pathParameter}` placeholders: `persons.events.{id}`. */
  subject: string;
  /** The JetStream stream that keeps the events, when declared: events then carry ids and resume. */
  stream?: string;
  /**
   * The schema of one event's data: the response's itemSchema (3.2), else its schema; of an item written as OAS 3.2's
   * whole event (`{data, event, id}`), its `data`'s `contentSchema` (examples likewise give their `data`).
   */
  itemSchema?: JsonSchema;
  /**
   * Examples of one event, in document order: the itemSchema's `example` (`default`) and `examples` (`example-1`,
   * `example-2` …), else the media type's examples.
   */
  examples: ApiExample[];
}

export interface ApiOperation {
  /**
   * The operation's name in generated code and metrics: its `operationId`, or, when it has none, one made from
   * method and path (see `nameOperation`). Unique in the document.
   */
  name: string;
  operationId?: string;
  method: HttpMethod;
  /** The path template as written in the document (`/persons/{id}`). */
  path: string;
  /** Where the gateway sends a call: `<topicPrefix>.<method>_<path>`, or the operation's `x-restbus-subject`. */
  subject: string;
  summary?: string;
  description?: string;
  tags: string[];
  deprecated: boolean;
  parameters: Record<ParameterLocation, ApiParameter[]>;
  requestBody?: ApiRequestBody;
  /** In document order. */
  responses: ApiResponse[];
  /**
   * Alternatives (any one suffices) of requirements (all of whose schemes are needed): the operation's own
   * `security`, else the document's. `[]` when none is asked; a `[]` alternative (`{}`) means "none needed".
   */
  security: ApiSecurityUse[][];
  /** A GET whose 2xx response is `text/event-stream` and which has `x-restbus-stream`. */
  stream?: ApiStream;
  /** easer's `x-static`: files under `contentPath` are served at the path; the operation is never forwarded. */
  static?: { contentPath: string };
  /** The operation's own `x-` members, for features built on them (streams, …). */
  extensions: Record<string, unknown>;
  /** Where it is written: the file and the path to the operation in it, to place messages at a line. */
  source: { file: string; pointer: Array<string | number> };
}

/** One loaded document. */
export interface ApiModel {
  file: string;
  dialect: Dialect;
  /** `info.title` and `info.version` (empty when absent). */
  title: string;
  version: string;
  operations: ApiOperation[];
  /** Named schemas (`components.schemas`, Swagger 2's `definitions`), dereferenced, for type generators. */
  schemas: Record<string, JsonSchema>;
  /** The document's own `x-` members (`x-restbus-rate-limit`: a limit every operation without its own shares). */
  extensions: Record<string, unknown>;
  /**
   * The dereferenced document, opaque: what the `$ref`s of a cycle left in a schema resolve against. Hand it to
   * ajv or the sampler as the root; never read OpenAPI from it.
   */
  schemaRoot: object;
}
