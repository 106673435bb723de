import { writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MockServer } from '../server/start-mock-server';
import { createCapturingLogger, sampleFiles, serveProject, writeProject } from './sample-project';

let project: string;
let server: MockServer;
const { logger, lines } = createCapturingLogger('info');
const echoDescriptor = sampleFiles()['services/echo/service.yml'] as string;

beforeAll(async () => {
  project = await writeProject(sampleFiles());
  server = await serveProject(project, { watch: false, logger });
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

/** Every load that reload() runs ends in one of these two log lines. */
const loadsLogged = (): number =>
  lines.filter((line) => line.msg === 'project reloaded' || typeof line.problems === 'string').length;

describe('reload', () => {
  it('runs 50 calls made at once as at most two loads, and serves the files written last', async () => {
    const before = loadsLogged();
    const calls: Array<ReturnType<MockServer['reload']>> = [];
    for (let edit = 0; edit < 50; edit++) {
      // Each call is made after its edit: the load that answers it must see that edit or a later one.
      writeFileSync(
        join(project, 'services/echo/service.yml'),
        echoDescriptor.replace('uriTemplate: /echo', `uriTemplate: /echo${edit}`),
      );
      calls.push(server.reload());
    }
    const results = await Promise.all(calls);
    expect(results).toEqual(Array<unknown>(50).fill({ ok: true }));
    expect(loadsLogged() - before).toBeLessThanOrEqual(2);
    expect((await fetch(`${server.url}/rest/echo49`, { method: 'PUT' })).status).toBe(200);
    expect((await fetch(`${server.url}/rest/echo48`, { method: 'PUT' })).status).toBe(404);
  });

  it('answers a call made after a burst with a load of its own', async () => {
    await Promise.all([server.reload(), server.reload(), server.reload()]);
    writeFileSync(join(project, 'services/echo/service.yml'), echoDescriptor);
    const before = loadsLogged();
    expect(await server.reload()).toEqual({ ok: true });
    expect(loadsLogged() - before).toBe(1);
    expect((await fetch(`${server.url}/rest/echo`, { method: 'PUT' })).status).toBe(200);
  });
});
