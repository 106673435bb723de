import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MockServer } from '../server/start-mock-server';
import { eventually, sampleFiles, serveProject, writeProject } from './sample-project';

let project: string;
let server: MockServer;

beforeAll(async () => {
  project = await writeProject(sampleFiles());
  server = await serveProject(project);
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

const text = async (path: string): Promise<string> => (await fetch(`${server.url}${path}`)).text();

describe('hot reload', () => {
  it('serves an edited mock file on a later request', async () => {
    await writeFile(join(project, 'services/users/user/getResource-responseBody.json'), '{"id":1,"data":"edited"}');
    await eventually(async () => (await text('/rest/users/1')) === '{"id":1,"data":"edited"}');
  });

  it('serves an edited descriptor', async () => {
    const descriptor = join(project, 'services/echo/service.yml');
    await writeFile(
      descriptor,
      (sampleFiles()['services/echo/service.yml'] as string).replace('uriTemplate: /echo', 'uriTemplate: /echo2'),
    );
    await eventually(async () => (await fetch(`${server.url}/rest/echo2`, { method: 'PUT' })).status === 200);
  });

  it('keeps the last good version serving when an edit breaks the project, and reports why', async () => {
    const descriptor = join(project, 'services/users/service.yml');
    await writeFile(descriptor, 'name: [unclosed\n');
    const result = await server.reload();
    expect(result).toEqual({
      ok: false,
      problems: expect.stringMatching(/^services\/users\/service\.yml:\d+: /) as unknown,
    });
    expect((await fetch(`${server.url}/rest/users`)).status).toBe(200);
    await writeFile(descriptor, sampleFiles()['services/users/service.yml']);
    expect(await server.reload()).toEqual({ ok: true });
  });

  it('keeps the last good version serving when an edit makes a descriptor expand past the bound', async () => {
    const descriptor = join(project, 'services/users/service.yml');
    const good = sampleFiles()['services/users/service.yml'] as string;
    await writeFile(
      descriptor,
      `${good}big: &big "${'x'.repeat(20_000)}"\nmany: [${Array(999).fill('*big').join(', ')}]\n`,
    );
    const result = await server.reload();
    expect(result).toEqual({
      ok: false,
      problems: expect.stringMatching(
        /^services\/users\/service\.yml:\d+: the document grows past 8 MiB once its aliases are expanded$/,
      ) as unknown,
    });
    expect((await fetch(`${server.url}/rest/users`)).status).toBe(200);
    await writeFile(descriptor, good);
    expect(await server.reload()).toEqual({ ok: true });
  });

  it('picks up a service added to config.yml', async () => {
    await writeProject(
      {
        'services/extra/service.yml': `name: Extra\ndescription: added later\nuriTemplate: /extra\nmethods:\n  GET:\n    summary: x\n    responses: [{ name: OK, statusCode: 200, reason: fine }]\n`,
      },
      project,
    );
    const config = sampleFiles()['config.yml'] as string;
    await writeFile(join(project, 'config.yml'), `${config}  - /extra\n`);
    await eventually(async () => (await fetch(`${server.url}/rest/extra`)).status === 200);
  });
});
