// The project's file formats, after the upstream rest-tool-common 0.4.2 schemas (draft-04 there), with `integer`
// also accepted as a parameter type. Extra properties are allowed where upstream allowed them: they reach the
// documentation and test templates.

const nullableString = { type: ['string', 'null'] } as const;
export const fieldListSchema = {
  type: ['array', 'null'],
  items: {
    type: 'object',
    required: ['field', 'content'],
    additionalProperties: false,
    properties: { field: { type: 'string' }, content: { type: 'string' } },
  },
} as const;

export const requestParameterSchema = {
  type: 'object',
  required: ['name', 'kind', 'type', 'required', 'summary'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    // HEADER: a request header the method reads (checked by the mock server's --validate, exported as `in: header`).
    kind: { enum: ['URL', 'QUERY', 'HEADER', 'BODY'] },
    type: { enum: ['string', 'number', 'integer', 'boolean', 'object', 'array'] },
    required: { type: 'boolean' },
    summary: { type: 'string' },
    default: { type: ['string', 'number', 'boolean', 'object', 'null'] },
  },
} as const;

export const responseSchema = {
  type: 'object',
  required: ['name', 'statusCode', 'reason'],
  properties: {
    name: { type: 'string' },
    statusCode: { type: ['integer', 'string'] },
    reason: { type: 'string' },
    description: nullableString,
    validationSchema: { type: 'string' },
    cookies: fieldListSchema,
    headers: fieldListSchema,
    mockBody: {},
  },
} as const;

export const testCaseSchema = {
  type: 'object',
  required: ['name', 'description', 'url', 'template', 'response'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    url: { type: 'string' },
    template: { type: 'string' },
    request: {
      type: ['object', 'null'],
      properties: { cookies: fieldListSchema, headers: fieldListSchema, mockBody: {} },
    },
    response: {
      type: 'object',
      required: ['statusCode'],
      properties: {
        statusCode: {},
        validationSchema: { type: 'string' },
        cookies: fieldListSchema,
        headers: fieldListSchema,
        mockBody: {},
      },
    },
  },
} as const;

export const methodSchema = {
  type: 'object',
  required: ['summary', 'responses'],
  properties: {
    summary: { type: 'string' },
    notes: nullableString,
    implementation: { type: 'string', pattern: '^[\\w-]+\\.[A-Za-z_$][\\w$]*$' },
    request: {
      type: ['object', 'null'],
      properties: {
        description: nullableString,
        parameters: { type: ['array', 'null'], items: requestParameterSchema },
        // A JSON Schema file beside the descriptor that the request body must match (the mock server's --validate).
        validationSchema: { type: 'string' },
        cookies: fieldListSchema,
        headers: fieldListSchema,
        mockBody: {},
      },
    },
    responses: { type: 'array', items: responseSchema },
    testCases: { type: ['array', 'null'], items: testCaseSchema },
  },
} as const;

export const serviceSchema = {
  type: 'object',
  required: ['name', 'description', 'uriTemplate', 'methods'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    style: { enum: ['OPERATION', 'COLLECTION', 'RESOURCE'] },
    // A COLLECTION and the RESOURCE below it answered from an in-memory state instead of their mock files
    // (`session`: one state per client session).
    stateful: { enum: [true, false, 'session'] },
    uriTemplate: { type: 'string', pattern: '^/' },
    methods: {
      type: 'object',
      minProperties: 1,
      additionalProperties: false,
      properties: { GET: methodSchema, PUT: methodSchema, POST: methodSchema, DELETE: methodSchema },
    },
  },
} as const;

export const projectConfigSchema = {
  type: 'object',
  required: [
    'projectName',
    'apiVersion',
    'author',
    'licence',
    'serviceUrlPrefix',
    'servicePort',
    'baseUrl',
    'servicesRoot',
    'services',
  ],
  properties: {
    projectName: { type: 'string' },
    apiVersion: { type: 'string' },
    author: { type: 'string' },
    licence: { type: 'string' },
    serviceUrlPrefix: { type: 'string' },
    servicePort: { type: 'integer', minimum: 0, maximum: 65535 },
    baseUrl: { type: 'string' },
    servicesRoot: { type: 'string' },
    services: { type: 'array', items: { type: 'string', pattern: '^/' } },
    loginCredentials: {
      type: 'object',
      required: ['user', 'pass'],
      properties: { user: { type: 'string' }, pass: { type: 'string' } },
    },
  },
} as const;

export const environmentSchema = {
  type: 'object',
  properties: {
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    documentRoot: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    restapiRoot: { type: 'string' },
    remoteServices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['uri', 'host', 'port'],
        properties: {
          uri: { type: 'string' },
          host: { type: 'string' },
          port: { type: 'integer' },
          active: { type: 'boolean' },
        },
      },
    },
    // The older rest-tool layout's proxy, read as a remoteServices rule with a deprecation warning.
    useRemoteServices: { type: 'boolean' },
    remoteHost: { type: 'string', minLength: 1, pattern: '^[^\\s/]+$' },
    remotePort: { type: 'integer', minimum: 1, maximum: 65535 },
    proxyException: {
      type: 'object',
      properties: { active: { type: 'boolean' }, urlPrefixList: { type: 'array', items: { type: 'string' } } },
    },
    requireLogin: { type: 'boolean' },
    // Paths answered without login when requireLogin is set (prefixes, e.g. a health check).
    openPaths: { type: 'array', items: { type: 'string', pattern: '^/' } },
    sessionSecret: { type: 'string' },
    proxyTimeout: { type: 'integer', minimum: 1, maximum: 600000 },
    implementationTimeout: { type: 'integer', minimum: 1, maximum: 600000 },
    // Every COLLECTION (and the RESOURCE below it) stateful, unless its descriptor says `stateful: false`.
    stateful: { enum: [true, false, 'session'] },
    // Check requests against the descriptors (parameters, body schema) and answer 400 REQUEST_INVALID.
    validate: { type: 'boolean' },
    // Record mode: forward every call to target and write what the project does not describe yet.
    record: {
      type: 'object',
      required: ['target'],
      additionalProperties: false,
      properties: {
        target: { type: 'string', pattern: '^https?://' },
        // Also record Authorization, Cookie and Set-Cookie headers.
        recordSecrets: { type: 'boolean' },
      },
    },
  },
} as const;

export const serverConfigSchema = {
  type: 'object',
  required: ['environments'],
  properties: {
    useEnvironment: { type: 'string' },
    environments: { type: 'object', required: ['default'], additionalProperties: environmentSchema },
  },
} as const;
