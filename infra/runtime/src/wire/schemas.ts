const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
const stringOrListMap = {
  type: 'object',
  additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
} as const;

// A query value nests (qs's extended syntax); the message's depth is bounded before it is parsed.
const queryMap = {
  type: 'object',
  additionalProperties: { $ref: '#/$defs/queryValue' },
} as const;
const queryValueDefs = {
  queryValue: {
    anyOf: [
      { type: 'string' },
      { type: 'array', items: { $ref: '#/$defs/queryValue' } },
      { type: 'object', additionalProperties: { $ref: '#/$defs/queryValue' } },
    ],
  },
} as const;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

/** JSON schema of the request message. Extra properties are allowed so that newer senders stay readable. */
export const requestMessageSchema = {
  $id: 'restbus:request-message',
  $defs: queryValueDefs,
  type: 'object',
  required: ['topic', 'method', 'uri', 'endpointDesc', 'request'],
  properties: {
    topic: { type: 'string', minLength: 1 },
    method: { enum: HTTP_METHODS },
    uri: { type: 'string', minLength: 1 },
    endpointDesc: {
      type: 'object',
      required: ['uri', 'jsfUri', 'method', 'operationId', 'consumes', 'produces', 'responses'],
      properties: {
        uri: { type: 'string' },
        jsfUri: { type: 'string' },
        method: { enum: HTTP_METHODS },
        operationId: { type: ['string', 'null'] },
        consumes: { type: 'array', items: { type: 'string' } },
        produces: { type: 'array', items: { type: 'string' } },
        responses: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['status', 'headers'],
            properties: { status: { type: 'string' }, headers: { type: 'object' }, examples: { type: 'object' } },
          },
        },
      },
    },
    request: {
      type: 'object',
      required: ['cookies', 'headers', 'parameters', 'body'],
      properties: {
        cookies: stringMap,
        headers: stringOrListMap,
        parameters: {
          type: 'object',
          required: ['query', 'uri'],
          properties: { query: queryMap, uri: stringMap },
        },
        body: { type: 'string' },
        bodyEncoding: { enum: ['utf8', 'base64'] },
      },
    },
  },
} as const;

/**
 * What a service accepts: the request message as restbus sends it, and as easer (npac-webserver-adapter) sent it.
 * easer's body is what its Express body parser left: `{}` for none, a string (the raw parser), or the value the
 * JSON, urlencoded or XML parser made; its cookies come from cookie-parser, which turns `j:` cookies into values.
 * `normalizeRequestMessage` turns what this admits into the {@link requestMessageSchema} shape.
 */
export const acceptedRequestMessageSchema = {
  ...requestMessageSchema,
  $id: 'restbus:accepted-request-message',
  properties: {
    ...requestMessageSchema.properties,
    request: {
      type: 'object',
      required: ['headers', 'parameters'],
      properties: {
        ...requestMessageSchema.properties.request.properties,
        cookies: { type: 'object' },
        // Express's JSON parser (strict, as easer used it) makes objects and lists only.
        body: { type: ['string', 'object', 'array', 'null'] },
      },
    },
  },
} as const;

/** JSON schema of the response message. */
export const responseMessageSchema = {
  $id: 'restbus:response-message',
  type: 'object',
  required: [],
  properties: {
    status: { type: 'integer', minimum: 100, maximum: 599 },
    headers: {
      type: 'object',
      additionalProperties: {
        anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'array', items: { type: 'string' } }],
      },
    },
    body: {},
  },
} as const;
