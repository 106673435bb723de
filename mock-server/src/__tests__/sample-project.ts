import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@restbus/infra';
import { waitFor } from '@restbus/infra/testing';
import type { Files } from '@restbus/project-format/testing';
import { startMockServer, type MockServer, type MockServerOptions } from '../server/start-mock-server';

export { writeProject, type Files } from '@restbus/project-format/testing';

/** A project like one the tool creates, with one service of each kind the server answers with. */
export const sampleFiles = (): Files => ({
  'server/config.yml': `useEnvironment: development
environments:
  default:
    port: 3007
    restapiRoot: ..
    documentRoot: ../webui
    remoteServices: []
  development: {}
  secured:
    requireLogin: true
    openPaths: [/rest/monitoring]
`,
  'config.yml': `projectName: demo
apiVersion: v1.2.3
author: me
licence: MIT
serviceUrlPrefix: /rest
servicePort: 3007
baseUrl: http://localhost:3007/rest
servicesRoot: services
loginCredentials: { user: alice, pass: 's3cret:pass' }
services:
  - /monitoring/isAlive
  - /users
  - /users/user
  - /echo
  - /report
  - /broken
  - /session
`,
  'server/monitoring.js': `exports.isAlive = (request, response, serviceDescriptor) => {
  response.set('X-Application-API-Version', serviceDescriptor.config.apiVersion);
  response.type('application/json').send('true\\n');
};
`,
  'server/api.js': `exports.createUser = async (request, response, service) => {
  const template = await service.readMockResponse('POST');
  response.status(201).json({ ...template, ...request.body, service: service.name });
};
exports.fails = () => { throw new Error('boom'); };
exports.rejects = async () => { throw new Error('async boom'); };
exports.count = (request, response) => {
  request.session.count = (request.session.count ?? 0) + 1;
  response.json({ count: request.session.count, cookies: request.cookies });
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
  'services/users/service.yml': `name: Users
description: The users
style: COLLECTION
uriTemplate: /users
methods:
  GET:
    summary: List users
    responses:
      - name: OK
        statusCode: &ok 200
        reason: Successful execution
        headers:
          - { field: Content-Type, content: application/json }
          - { field: X-Total-Count, content: '2' }
        cookies:
          - { field: last-list, content: users }
        mockBody: getCollection-responseBody.json
      - name: Empty
        statusCode: 404
        reason: No users
        mockBody: notFound.json
      - name: Missing
        statusCode: 200
        reason: The file is not there
        mockBody: nowhere.json
  POST:
    summary: Create a user
    implementation: api.createUser
    responses:
      - { name: OK, statusCode: 201, reason: Created, mockBody: postCollection-responseBody.json }
`,
  'services/users/getCollection-responseBody.json': '[{"id":1,"data":"some mock data"},{"id":2,"data":"more"}]\n',
  'services/users/notFound.json': '{"error":"no users"}',
  'services/users/postCollection-responseBody.json': '{"id":3,"data":"created"}',
  'services/users/user/service.yml': `name: User
description: One user
style: RESOURCE
uriTemplate: /users/{id}
methods:
  GET:
    summary: Get one user
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: getResource-responseBody.json }
  DELETE:
    summary: Delete a user
    responses:
      - { name: OK, statusCode: 204, reason: Deleted }
`,
  'services/users/user/getResource-responseBody.json': '{"id":1,"data":"Some mock data of the resource"}',
  'services/echo/service.yml': `name: Echo
description: Answers with its own descriptor
uriTemplate: /echo
methods:
  PUT:
    summary: Echo
    responses:
      - { name: OK, statusCode: 200, reason: fine }
`,
  'services/report/service.yml': `name: Report
description: A text report
uriTemplate: /report
methods:
  GET:
    summary: A text file
    responses:
      - name: OK
        statusCode: 200
        reason: fine
        headers: [{ field: Content-Type, content: text/csv }]
        mockBody: report.csv
`,
  'services/report/report.csv': 'a,b\r\n1,"x y"\r\n',
  'services/broken/service.yml': `name: Broken
description: Implementations that fail
uriTemplate: /broken/{how}
methods:
  GET:
    summary: throws
    implementation: api.fails
    responses: [{ name: OK, statusCode: 200, reason: never }]
  PUT:
    summary: rejects
    implementation: api.rejects
    responses: [{ name: OK, statusCode: 200, reason: never }]
  POST:
    summary: a module that is not there
    implementation: missing.fn
    responses: [{ name: OK, statusCode: 200, reason: never }]
  DELETE:
    summary: a function that is not there
    implementation: api.nope
    responses: [{ name: OK, statusCode: 200, reason: never }]
`,
  'services/session/service.yml': `name: Session
description: Counts the calls of one client
uriTemplate: /session
methods:
  GET:
    summary: count
    implementation: api.count
    responses: [{ name: OK, statusCode: 200, reason: fine }]
`,
  'data/info.txt': 'data file\n',
  'docs/index.html': '<h1>docs</h1>\n',
  'webui/index.html': '<h1>app</h1>\n',
  'webui/app.js': 'console.log(1);\n',
});

/**
 * The sample without its deliberate faults (the /broken service's missing module and function, the users service's
 * missing mock file): a project that checks clean.
 */
export function validSampleFiles(): Files {
  const files = sampleFiles();
  return {
    ...files,
    'config.yml': (files['config.yml'] as string).replace('  - /broken\n', ''),
    'services/users/nowhere.json': '[]\n',
  };
}

export const silentLogger = createLogger({ name: 'test', level: 'silent' });

/** Serves a project on a free port, quietly (no log, no listening line on stdout). */
export function serveProject(projectDir: string, options: Partial<MockServerOptions> = {}): Promise<MockServer> {
  return startMockServer({
    projectDir,
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    announce: false,
    ...options,
  });
}

/** A JSON logger whose lines a test reads: `lines` holds every entry logged so far. */
export function createCapturingLogger(level = 'debug'): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ name: 'test', level, format: 'json', destination }), lines };
}

/**
 * Polls until the server shows a change: the watcher reacts within tens of milliseconds, not synchronously. The
 * deadline is a timer (waitFor), far beyond what a loaded machine needs.
 */
export function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  return waitFor(check, { what: 'the change', timeoutMs, everyMs: 25 });
}

/** A project's config.yml as rest-tool writes it, serving `services` under /rest. */
export const shopConfig = (services: string[]): string => `projectName: shop
apiVersion: v1.0.0
author: me
licence: MIT
serviceUrlPrefix: /rest
servicePort: 3007
baseUrl: http://localhost:3007/rest
servicesRoot: services
services:
${services.map((service) => `  - ${service}\n`).join('')}`;
