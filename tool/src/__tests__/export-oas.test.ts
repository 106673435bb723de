import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createLogger } from '@restbus/infra';
// The gateway is only a devDependency of the tool: its tests prove the gateway serves the export.
import { startGateway, type RunningGateway, loadApi } from '@restbus/gateway/testing';
import { makeTempDir, runTool } from './tool-helpers';

type OpenApi = {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

describe('rest-tool export-oas', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let project: string;
  beforeAll(async () => {
    temp = await makeTempDir();
    await runTool(temp.dir, ['create', 'p']);
    project = join(temp.dir, 'p');
    await runTool(project, ['add-bulk', '-s', join(__dirname, 'fixtures', 'services.json')]);
  });
  afterAll(() => temp.remove());

  it('writes OpenAPI 3.1 with a path per service, parameters, examples from the mocks and responses', async () => {
    const result = await runTool(project, ['export-oas', '-o', 'api.yml']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe('wrote 5 paths to api.yml\n');
    const api = parse(await readFile(join(project, 'api.yml'), 'utf8')) as OpenApi;
    expect(api.openapi).toBe('3.1.0');
    expect(api.info).toMatchObject({ title: 'p', version: 'v0.0.0' });
    expect(Object.keys(api.paths)).toEqual([
      '/rest/monitoring/isAlive',
      '/rest/orders',
      '/rest/orders/{id}',
      '/rest/filterOrders',
      '/rest/projects',
    ]);
    expect(Object.keys(api.paths['/rest/orders/{id}'])).toEqual(['get', 'put', 'delete']);
    expect(api.paths['/rest/orders/{id}'].get.parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'The id of the Order',
        schema: { type: 'string', default: '1' },
      },
    ]);
    expect(api.paths['/rest/orders'].post.requestBody).toEqual({
      content: { 'application/json': { example: { data: 'some mock data of a new instance' } } },
    });
    expect(api.paths['/rest/orders'].get.responses).toEqual({
      200: {
        description: 'Successful execution',
        content: {
          'application/json': {
            example: [
              { id: 1, data: 'some mock data' },
              { id: 2, data: 'some mock data' },
            ],
          },
        },
      },
    });
    expect(api.paths['/rest/monitoring/isAlive'].get.responses).toMatchObject({
      200: { headers: { 'X-Application-API-Version': { schema: { type: 'string' }, example: 'v0.0.0' } } },
    });
  });

  it('prints YAML without -o and JSON for a .json file', async () => {
    const printed = await runTool(project, ['export-oas']);
    expect((parse(printed.stdout) as OpenApi).openapi).toBe('3.1.0');
    await runTool(project, ['export-oas', '-o', 'api.json']);
    expect((JSON.parse(await readFile(join(project, 'api.json'), 'utf8')) as OpenApi).paths).toEqual(
      (parse(printed.stdout) as OpenApi).paths,
    );
  });

  it('passes the official schema validation the gateway runs, and the gateway serves every exported operation', async () => {
    await runTool(project, ['export-oas', '-o', 'gateway.yml']);
    const file = join(project, 'gateway.yml');
    const endpoints = await loadApi(file);
    expect(endpoints.map((endpoint) => `${endpoint.desc.method} ${endpoint.desc.uri}`)).toEqual(
      expect.arrayContaining(['get /rest/monitoring/isAlive', 'put /rest/orders/{id}', 'post /rest/projects']),
    );
    expect(endpoints).toHaveLength(9);
    let gateway: RunningGateway | undefined;
    try {
      gateway = await startGateway(
        {
          restApiPath: [file],
          port: 0,
          natsUri: 'nats://127.0.0.1:1',
          topicPrefix: 'easer',
          inboxPrefix: '_INBOX',
          useMessaging: false,
          timeout: 1000,
          basePath: '/',
          bodyLimit: 1024 * 1024,
          logLevel: 'silent',
          validate: false,
        },
        createLogger({ name: 'gateway', level: 'silent' }),
      );
      const base = `http://127.0.0.1:${gateway.port}`;
      // Without -u the gateway answers 501 on a described endpoint, and 404 on anything else.
      expect((await fetch(`${base}/rest/orders/7`, { method: 'PUT', body: '{}' })).status).toBe(501);
      expect((await fetch(`${base}/rest/monitoring/isAlive`)).status).toBe(501);
      expect((await fetch(`${base}/rest/not-exported`)).status).toBe(404);
    } finally {
      await gateway?.stop();
    }
  });

  it('refuses an invalid project with exit 1 and writes no file', async () => {
    const other = join(temp.dir, 'broken');
    await runTool(temp.dir, ['create', 'broken']);
    await writeFile(join(other, 'services', 'monitoring', 'isAlive', 'service.yml'), 'name: x\n');
    const result = await runTool(other, ['export-oas', '-o', 'api.yml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/services\/monitoring\/isAlive\/service\.yml:1: \/: must have required property/);
    await expect(readFile(join(other, 'api.yml'))).rejects.toThrow(/ENOENT/);
  });

  it('exports a project whose validationSchema is dangling without that schema and with a warning, and refuses it with --strict', async () => {
    const dangling = join(temp.dir, 'dangling');
    await runTool(temp.dir, ['create', 'dangling']);
    await runTool(dangling, ['add', '-t', 'COLLECTION', '-p', '/users', '-u', '/users', '-n', 'Users']);
    const file = join(dangling, 'services', 'users', 'service.yml');
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text.replace(/(mockBody: getCollection-responseBody\.json)/, '$1\n        validationSchema: gone-schema.json'),
    );
    const result = await runTool(dangling, ['export-oas', '-o', 'api.yml']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^rest-tool: warning: .*validationSchema: the file gone-schema\.json does not exist/);
    const api = parse(await readFile(join(dangling, 'api.yml'), 'utf8')) as OpenApi;
    const ok = (api.paths['/rest/users'].get.responses as Record<string, { content: Record<string, unknown> }>)['200'];
    expect(ok.content['application/json']).not.toHaveProperty('schema');
    const strict = await runTool(dangling, ['export-oas', '-o', 'strict.yml', '--strict']);
    expect(strict.code).toBe(1);
    await expect(readFile(join(dangling, 'strict.yml'))).rejects.toThrow(/ENOENT/);
  });
});
