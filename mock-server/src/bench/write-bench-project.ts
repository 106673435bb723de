import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeProject } from '@restbus/project-format/testing';

export const API_VERSION = 'v1.2.3';
export const IS_ALIVE_PATH = '/rest/monitoring/isAlive';
export const ITEMS_PATH = '/rest/items';

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
    },
  };
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(document, null, 2));
}
