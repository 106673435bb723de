import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import { sampleFiles, silentLogger, writeProject } from '../__tests__/sample-project';
import { startMockServer } from './start-mock-server';

let holder: Server;
let port: number;
const projects: string[] = [];

beforeAll(async () => {
  holder = createServer().listen(0, '127.0.0.1');
  await once(holder, 'listening');
  port = (holder.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  for (const project of projects) await rm(project, { recursive: true, force: true });
});

async function projectOnPort(configured: number): Promise<string> {
  const files = sampleFiles();
  const project = await writeProject({
    ...files,
    'server/config.yml': (files['server/config.yml'] as string).replace('port: 3007', `port: ${configured}`),
  });
  projects.push(project);
  return project;
}

describe('startMockServer on a port another program holds', () => {
  it('fails with one line naming the port and the config.yml setting it came from', async () => {
    const projectDir = await projectOnPort(port);
    await expect(startMockServer({ projectDir, host: '127.0.0.1', logger: silentLogger })).rejects.toMatchObject({
      code: 'PORT_UNAVAILABLE',
      message:
        `port ${port} on 127.0.0.1 is already in use by another program; choose another port with ` +
        `--port ${port + 10}, or change the port of the development environment in server/config.yml`,
    });
  });

  it('names --port alone when the port was given as an option', async () => {
    const projectDir = await projectOnPort(3007);
    await expect(
      startMockServer({ projectDir, port, host: '127.0.0.1', watch: true, logger: silentLogger }),
    ).rejects.toThrow(new RegExp(`; choose another port with --port ${port + 10}$`));
  });
});
