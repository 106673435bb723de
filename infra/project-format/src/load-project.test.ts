import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { countLoadCompiles } from '@restbus/infra/testing';
import { writeProject } from './testing/write-project';
import { loadProject } from './load-project';

const SERVER_CONFIG = `useEnvironment: development
environments:
  default:
    port: 3007
    restapiRoot: ..
    documentRoot: ../webui
    remoteServices: []
  development:
    documentRoot: [../webui, ../dist]
  devProxy:
    remoteServices:
      - { uri: '/users.*', host: localhost, port: 3008, active: true }
`;

const PROJECT_CONFIG = `projectName: demo
apiVersion: v0.0.0
author: me
licence: MIT
serviceUrlPrefix: /rest
servicePort: 3007
baseUrl: http://localhost:3007/rest
servicesRoot: services
services:
  - /monitoring/isAlive
  - /users
`;

const IS_ALIVE = `name: isAlive
description: Monitoring
style: OPERATION
uriTemplate: /monitoring/isAlive
methods:
  GET:
    summary: Is the server alive?
    implementation: monitoring.isAlive
    responses:
      - { name: OK, statusCode: 200, reason: Successful execution }
`;

const USERS = `name: Users
description: The users
style: COLLECTION
urlPattern: /users
x-defaults: &ok
  name: OK
  statusCode: 200
  reason: fine
methods:
  GET:
    summary: List users
    request:
      parameters:
        - { name: limit, kind: QUERY, type: integer, required: false, summary: at most this many, default: 10 }
    responses:
      - <<: *ok
        mockBody: getUsers-responseBody.json
`;

let root: string;

const createProject = async (files: Record<string, string>): Promise<string> =>
  writeProject(files, await mkdtemp(join(root, 'project-')));

const validFiles = {
  'server/config.yml': SERVER_CONFIG,
  'config.yml': PROJECT_CONFIG,
  'services/monitoring/isAlive/service.yml': IS_ALIVE,
  'services/users/service.yml': USERS,
};

async function problemsOf(files: Record<string, string>, environment?: string): Promise<string[]> {
  const dir = await createProject(files);
  const err = await loadProject({ projectDir: dir, environment }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof RestbusError) || err.code !== 'PROJECT_INVALID')
    throw new Error(`expected PROJECT_INVALID, got ${String(err)}`);
  return err.message.split('\n');
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'restbus-mock-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('loadProject', () => {
  it('compiles none of its schemas when the package loads, only when it checks a project', () => {
    expect(countLoadCompiles(join(__dirname, '../dist/index.js'))).toBe(0);
  });

  it('merges the default environment with the selected one, and lists the services', async () => {
    const dir = await createProject(validFiles);
    const project = await loadProject({ projectDir: dir });
    expect(project.environment).toMatchObject({
      name: 'development',
      port: 3007,
      documentRoots: [join(dir, 'webui'), join(dir, 'dist')],
      restapiRoot: dir,
    });
    expect(project.services.map((service) => [service.path, service.descriptor.uriTemplate])).toEqual([
      ['/monitoring/isAlive', '/monitoring/isAlive'],
      ['/users', '/users'],
    ]);
    expect(project.warnings).toEqual(['services/users/service.yml: urlPattern is deprecated, use uriTemplate']);
  });

  it('does not leak the useEnvironment values into another environment chosen by name', async () => {
    const dir = await createProject(validFiles);
    const project = await loadProject({ projectDir: dir, environment: 'devProxy' });
    expect(project.environment.documentRoots).toEqual([join(dir, 'webui')]);
    expect(project.environment.remoteServices).toHaveLength(1);
  });

  it('resolves YAML anchors and merge keys', async () => {
    const project = await loadProject({ projectDir: await createProject(validFiles) });
    const users = project.services[1].descriptor.methods.GET as { responses: unknown[] };
    expect(users.responses).toEqual([
      { name: 'OK', statusCode: 200, reason: 'fine', mockBody: 'getUsers-responseBody.json' },
    ]);
  });

  it('refuses an unknown environment, listing the known ones', async () => {
    expect(await problemsOf(validFiles, 'staging')).toEqual([
      'server/config.yml: unknown environment "staging"; known: default, development, devProxy',
    ]);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'takes "%s" as an unknown environment name, not as a member of every object',
    async (name) => {
      expect(await problemsOf(validFiles, name)).toEqual([
        `server/config.yml: unknown environment "${name}"; known: default, development, devProxy`,
      ]);
    },
  );

  it('names file, line, path and problem of an invalid descriptor', async () => {
    const broken = IS_ALIVE.replace('    summary: Is the server alive?\n', '');
    expect(await problemsOf({ ...validFiles, 'services/monitoring/isAlive/service.yml': broken })).toEqual([
      "services/monitoring/isAlive/service.yml:6: /methods/GET: must have required property 'summary'",
    ]);
  });

  it.each([
    ['proxyTimeout', '"30s"', 'must be integer'],
    ['implementationTimeout', '0', 'must be >= 1'],
    ['requireLogin', 'yes', 'must be boolean'],
    ['sessionSecret', '42', 'must be string'],
  ])('refuses a documented environment setting of the wrong kind: %s: %s', async (name, value, message) => {
    const server = SERVER_CONFIG.replace('  development:\n', `  development:\n    ${name}: ${value}\n`);
    const problems = await problemsOf({ ...validFiles, 'server/config.yml': server });
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^server/config.yml:\\d+: .*${name}: ${message}`))]);
  });

  it('lists every problem of every file', async () => {
    const users = USERS.replace('style: COLLECTION', 'style: WRONG').replace('  GET:', '  PATCH:');
    const alive = IS_ALIVE.replace('statusCode: 200', 'statusCode: [200]');
    const problems = await problemsOf({
      ...validFiles,
      'services/users/service.yml': users,
      'services/monitoring/isAlive/service.yml': alive,
    });
    expect(problems).toEqual([
      'services/monitoring/isAlive/service.yml:10: /methods/GET/responses/0/statusCode: must be integer,string',
      'services/users/service.yml:3: /style: must be one of "OPERATION", "COLLECTION", "RESOURCE"',
      'services/users/service.yml:10: /methods/PATCH: is not allowed here',
    ]);
  });

  it('names the file and line of a YAML syntax error and of an undefined alias', async () => {
    const problems = await problemsOf({
      ...validFiles,
      'services/users/service.yml': 'name: [unclosed\n',
      'services/monitoring/isAlive/service.yml': 'name: *nowhere\n',
    });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^services\/monitoring\/isAlive\/service\.yml:1: .*nowhere/);
    expect(problems[1]).toMatch(/^services\/users\/service\.yml:\d+: /);
  });

  it('refuses tags that would build more than plain data', async () => {
    const problems = await problemsOf({
      ...validFiles,
      'config.yml': `${PROJECT_CONFIG}hook: !!js/function 'function () {}'\n`,
    });
    expect(problems[0]).toMatch(/^config\.yml:12: unsupported tag/);
  });

  it('refuses two services with the same method and URI', async () => {
    const twin = IS_ALIVE.replace('name: isAlive', 'name: twin');
    const problems = await problemsOf({
      ...validFiles,
      'config.yml': `${PROJECT_CONFIG}  - /twin\n`,
      'services/twin/service.yml': twin,
    });
    expect(problems).toEqual([
      'services/twin/service.yml:4: /uriTemplate: GET /monitoring/isAlive is also served by services/monitoring/isAlive/service.yml:4',
    ]);
  });

  // The mock server matches paths case-insensitively, with an optional trailing slash: these would shadow each other.
  it.each([
    ['in another case', '/Monitoring/IsAlive'],
    ['in the case of one letter', '/monitoring/isalive'],
    ['with a trailing slash', '/monitoring/isAlive/'],
    ['in case and a trailing slash', '/MONITORING/ISALIVE/'],
  ])('refuses two services whose URIs differ only %s, naming both files and lines', async (_how, uriTemplate) => {
    const twin = IS_ALIVE.replace('name: isAlive', 'name: twin').replace(
      'uriTemplate: /monitoring/isAlive',
      `uriTemplate: ${uriTemplate}`,
    );
    const problems = await problemsOf({
      ...validFiles,
      'config.yml': `${PROJECT_CONFIG}  - /twin\n`,
      'services/twin/service.yml': twin,
    });
    expect(problems).toEqual([
      `services/twin/service.yml:4: /uriTemplate: GET ${uriTemplate} is also served by services/monitoring/isAlive/service.yml:4 as /monitoring/isAlive, the same route to the mock server (paths match without regard to case, parameter names or a trailing slash)`,
    ]);
  });

  it('names a missing project config file', async () => {
    const { 'config.yml': _omitted, ...rest } = validFiles;
    expect(await problemsOf(rest)).toEqual(['config.yml: cannot read: no such file']);
  });
});
