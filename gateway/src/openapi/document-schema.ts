const operation = {
  type: 'object',
  required: ['responses'],
  properties: {
    operationId: { type: 'string' },
    responses: { type: 'object', minProperties: 1 },
    consumes: { type: 'array', items: { type: 'string' } },
    produces: { type: 'array', items: { type: 'string' } },
    requestBody: { type: 'object' },
  },
} as const;

const pathItem = {
  type: 'object',
  properties: {
    get: operation,
    put: operation,
    post: operation,
    delete: operation,
    patch: operation,
    head: operation,
    options: operation,
    trace: operation,
  },
} as const;

/**
 * The parts of a Swagger 2.0 or OpenAPI 3.x document the gateway relies on. Checked once at load, so that the
 * endpoint extraction can trust the shape.
 */
export const documentSchema = {
  type: 'object',
  required: ['info', 'paths'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.[01]\\.\\d+$' },
    swagger: { const: '2.0' },
    info: { type: 'object', required: ['title', 'version'] },
    paths: { type: 'object', propertyNames: { pattern: '^/' }, additionalProperties: pathItem },
    consumes: { type: 'array', items: { type: 'string' } },
    produces: { type: 'array', items: { type: 'string' } },
  },
  oneOf: [{ required: ['openapi'] }, { required: ['swagger'] }],
} as const;
