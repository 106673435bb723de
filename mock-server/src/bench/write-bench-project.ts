import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeProject } from '@restbus/project-format/testing';

export const API_VERSION = 'v1.2.3';
export const IS_ALIVE_PATH = '/rest/monitoring/isAlive';
export const ITEMS_PATH = '/rest/items';
/** A stateful collection's resource, written to by PUT (ids 1 to CUSTOMERS). */
export const CUSTOMERS_PATH = '/rest/customers';
export const CUSTOMERS = 100;
/** A templated answer (restbus-mock) or one generated from the schema per request (Prism's dynamic mode). */
export const GREETING_PATH = '/rest/greetings/Ada?lang=en';
/** A validated POST: a required header, a query parameter and a body schema. */
export const ORDERS_PATH = '/rest/orders?dryRun=false';
export const ORDER = { customerId: 7, items: [{ sku: 'A-1', quantity: 2 }], note: 'bench' };
export const CREATED_ORDER = { id: 1, status: 'accepted' };

const orderSchema = {
  type: 'object',
  required: ['customerId', 'items'],
  properties: {
    customerId: { type: 'integer', minimum: 1 },
    items: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['sku', 'quantity'],
        properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
      },
    },
    note: { type: 'string' },
  },
};
const customerSchema = {
  type: 'object',
  required: ['name', 'email'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, email: { type: 'string' } },
};
const greetingSchema = {
  type: 'object',
  required: ['greeting', 'lang', 'at', 'luckyNumber', 'id'],
  properties: {
    greeting: { type: 'string' },
    lang: { type: 'string', enum: ['en', 'de'] },
    at: { type: 'string', format: 'date-time' },
    luckyNumber: { type: 'integer', minimum: 1, maximum: 100 },
    id: { type: 'string', format: 'uuid' },
  },
};
const makeCustomers = () =>
  Array.from({ length: CUSTOMERS }, (_, index) => ({
    id: index + 1,
    name: `Customer ${index + 1}`,
    email: `c${index + 1}@example.com`,
  }));

/** About 10 KB of JSON: an array of small objects, deterministic so that every run serves the same bytes. */
export function makeItems(bytes = 10 * 1024): unknown[] {
  const items: unknown[] = [];
  while (JSON.stringify(items).length < bytes) {
    const id = items.length + 1;
    items.push({
      id,
      name: `Item ${id}`,
      email: `item${id}@example.com`,
      active: id % 3 !== 0,
      price: Math.round(id * 137.5) / 100,
      tags: ['bench', `group-${id % 7}`],
    });
  }
  return items;
}

/** The restbus project: isAlive through an implementation function, `/items` from a mock file. */
export async function writeRestbusProject(root: string, items: unknown[]): Promise<void> {
  await writeProject(
    {
      'server/config.yml': `useEnvironment: development
environments:
  default:
    port: 3007
    restapiRoot: ..
    remoteServices: []
  development: {}
`,
      'config.yml': `projectName: bench
apiVersion: ${API_VERSION}
author: bench
licence: MIT
serviceUrlPrefix: /rest
servicePort: 3007
baseUrl: http://localhost:3007/rest
servicesRoot: services
services:
  - /monitoring/isAlive
  - /items
  - /customers
  - /customers/customer
  - /greetings
  - /orders
`,
      'server/monitoring.js': `exports.isAlive = (request, response) => {
  response.set('X-Application-API-Version', '${API_VERSION}');
  response.type('application/json').send('true\\n');
};
`,
      'services/monitoring/isAlive/service.yml': `name: isAlive
description: Monitoring
style: OPERATION
uriTemplate: /monitoring/isAlive
methods:
  GET:
    summary: Is the server alive?
    implementation: monitoring.isAlive
    responses:
      - { name: OK, statusCode: 200, reason: Successful execution }
`,
      'services/items/service.yml': `name: Items
description: About 10 KB of JSON
style: COLLECTION
uriTemplate: /items
methods:
  GET:
    summary: List items
    responses:
      - { name: OK, statusCode: 200, reason: Successful execution, mockBody: getCollection-responseBody.json }
`,
      'services/items/getCollection-responseBody.json': `${JSON.stringify(items)}\n`,
      'services/customers/service.yml': `name: Customers
description: A stateful collection
style: COLLECTION
uriTemplate: /customers
stateful: true
methods:
  GET:
    summary: List customers
    responses:
      - { name: OK, statusCode: 200, reason: Successful execution, mockBody: getCollection-responseBody.json }
`,
      'services/customers/getCollection-responseBody.json': `${JSON.stringify(makeCustomers())}\n`,
      'services/customers/customer/service.yml': `name: Customer
description: One customer of the stateful collection
style: RESOURCE
uriTemplate: /customers/{customerId}
methods:
  PUT:
    summary: Replace a customer
    responses:
      - { name: OK, statusCode: 200, reason: Successful execution }
`,
      'services/greetings/service.yml': `name: Greetings
description: A templated answer
style: OPERATION
uriTemplate: /greetings/{name}
methods:
  GET:
    summary: Greet
    responses:
      - { name: OK, statusCode: 200, reason: Successful execution, mockBody: greeting.json.hbs }
`,
      'services/greetings/greeting.json.hbs': `{
  "greeting": "Hello, {{request.params.name}}!",
  "lang": "{{default request.query.lang 'en'}}",
  "at": "{{now}}",
  "luckyNumber": {{randomInt 1 100}},
  "id": "{{uuid}}"
}
`,
      'services/orders/service.yml': `name: Orders
description: A validated POST
style: OPERATION
uriTemplate: /orders
methods:
  POST:
    summary: Place an order
    request:
      validationSchema: order-schema.json
      parameters:
        - { name: X-Api-Key, kind: HEADER, type: string, required: true, summary: the caller }
        - { name: dryRun, kind: QUERY, type: boolean, required: false, summary: only check }
    responses:
      - { name: OK, statusCode: 201, reason: Created, mockBody: created.json }
`,
      'services/orders/order-schema.json': JSON.stringify(orderSchema),
      'services/orders/created.json': `${JSON.stringify(CREATED_ORDER)}\n`,
    },
    root,
  );
}

/** The same two endpoints for Prism, answered from static examples (Prism's default, non-dynamic mode). */
export async function writeOpenApi(file: string, items: unknown[]): Promise<void> {
  const versionHeader = {
    'X-Application-API-Version': { schema: { type: 'string' }, example: API_VERSION },
  };
  const ok = (schema: unknown, example: unknown) => ({
    '200': {
      description: 'Successful execution',
      headers: versionHeader,
      content: { 'application/json': { schema, example } },
    },
  });
  const document = {
    openapi: '3.0.3',
    info: { title: 'bench', version: API_VERSION },
    paths: {
      [IS_ALIVE_PATH]: { get: { operationId: 'isAlive', responses: ok({ type: 'boolean' }, true) } },
      [ITEMS_PATH]: {
        get: { operationId: 'listItems', responses: ok({ type: 'array', items: { type: 'object' } }, items) },
      },
      [`${CUSTOMERS_PATH}/{customerId}`]: {
        put: {
          operationId: 'replaceCustomer',
          parameters: [{ name: 'customerId', in: 'path', required: true, schema: { type: 'integer' } }],
          requestBody: { required: true, content: { 'application/json': { schema: customerSchema } } },
          responses: ok(customerSchema, makeCustomers()[0]),
        },
      },
      '/rest/greetings/{name}': {
        get: {
          operationId: 'greet',
          parameters: [
            { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'lang', in: 'query', schema: { type: 'string', enum: ['en', 'de'] } },
          ],
          responses: ok(greetingSchema, {
            greeting: 'Hello, Ada!',
            lang: 'en',
            at: '2026-01-01T00:00:00.000Z',
            luckyNumber: 7,
            id: '00000000-0000-4000-8000-000000000000',
          }),
        },
      },
      '/rest/orders': {
        post: {
          operationId: 'placeOrder',
          parameters: [
            { name: 'X-Api-Key', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'dryRun', in: 'query', schema: { type: 'boolean' } },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: orderSchema } } },
          responses: {
            '201': {
              description: 'Created',
              headers: versionHeader,
              content: { 'application/json': { schema: { type: 'object' }, example: CREATED_ORDER } },
            },
          },
        },
      },
    },
  };
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(document, null, 2));
}
