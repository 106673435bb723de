import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually, sampleFiles, serveProject, writeProject } from '../__tests__/sample-project';
import type { MockServer } from './start-mock-server';

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

// What `sed -i` and an editor's atomic save do: write a temp file next to it, rename it over the original.
async function replaceByRename(file: string, content: string): Promise<void> {
  await writeFile(`${file}.tmp-save`, content);
  await rename(`${file}.tmp-save`, file);
}

describe('hot reload after a file is replaced by a rename', () => {
  it('serves a mock body replaced by a rename, then the same body written again in place', async () => {
    const body = join(project, 'services/users/user/getResource-responseBody.json');
    await replaceByRename(body, '{"id":1,"data":"renamed over"}');
    await eventually(async () => (await text('/rest/users/1')) === '{"id":1,"data":"renamed over"}');
    await writeFile(body, '{"id":1,"data":"written in place"}');
    await eventually(async () => (await text('/rest/users/1')) === '{"id":1,"data":"written in place"}');
  });

  it('serves a descriptor replaced by a rename, then the same descriptor written again in place', async () => {
    const descriptor = join(project, 'services/echo/service.yml');
    const original = sampleFiles()['services/echo/service.yml'] as string;
    await replaceByRename(descriptor, original.replace('uriTemplate: /echo', 'uriTemplate: /echo-renamed'));
    await eventually(async () => (await fetch(`${server.url}/rest/echo-renamed`, { method: 'PUT' })).status === 200);
    await writeFile(descriptor, original.replace('uriTemplate: /echo', 'uriTemplate: /echo-in-place'));
    await eventually(async () => (await fetch(`${server.url}/rest/echo-in-place`, { method: 'PUT' })).status === 200);
  });
});
