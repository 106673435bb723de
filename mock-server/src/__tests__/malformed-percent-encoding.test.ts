import { rm } from 'node:fs/promises';
import type { MockServer } from '../server/start-mock-server';
import { rawGet } from './raw-get';
import { sampleFiles, serveProject, writeProject } from './sample-project';

let project: string;
let server: MockServer;

beforeAll(async () => {
  project = await writeProject(sampleFiles());
  server = await serveProject(project, { watch: false });
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

describe('a path with a malformed percent-encoding', () => {
  it.each([
    ['an escape that is not hexadecimal', '/rest/users/%ZZ'],
    ['a lone percent sign', '/rest/users/50%'],
    ['an escape cut short', '/rest/users/%4'],
    ['escapes that are not UTF-8', '/rest/users/%C3'],
    ['an overlong UTF-8 spelling of a slash', '/rest/users/%C0%AF'],
    ['a static path', '/data/info%ZZ.txt'],
    ['a path nothing serves', '/nothing/%ZZ'],
  ])('is answered 400 BAD_REQUEST as JSON for %s', async (_case, path) => {
    const response = await rawGet(server.url, path);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({
      error: 'the path holds a malformed percent-encoding',
      code: 'BAD_REQUEST',
    });
  });

  it('leaves well-formed escapes and a malformed query alone', async () => {
    expect((await rawGet(server.url, '/rest/users/caf%C3%A9')).status).toBe(200);
    expect((await rawGet(server.url, '/rest/users/a%20b')).status).toBe(200);
    expect((await rawGet(server.url, '/rest/users?filter=%ZZ')).status).toBe(200);
  });
});
