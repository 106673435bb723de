import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { collectGarbage } from '@restbus/infra/testing';
import type { MockServer } from '../server/start-mock-server';
import { sampleFiles, serveProject, writeProject } from './sample-project';

const AUTOCANNON = resolve(__dirname, '../../../node_modules/.bin/autocannon');

/** Sends `amount` requests from another process (so the load does not run on the server's event loop). */
function load(url: string, amount: number): Promise<{ non2xx: number; total: number }> {
  return new Promise((done, failed) => {
    const child = spawn(AUTOCANNON, ['-j', '-c', '32', '-a', String(amount), url]);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', failed);
    child.on('close', (code) => {
      if (code !== 0) return failed(new Error(`autocannon exited with ${code}`));
      const result = JSON.parse(out) as { non2xx: number; requests: { sent: number } };
      done({ non2xx: result.non2xx, total: result.requests.sent });
    });
  });
}

const settledMemory = (): number => {
  collectGarbage();
  collectGarbage();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
};

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

describe('sessions', () => {
  it('grow memory by less than 20 MB over 100,000 cookie-less requests to a service that writes its session', async () => {
    await load(`${server.url}/rest/session`, 2_000);
    const before = settledMemory();
    const result = await load(`${server.url}/rest/session`, 100_000);
    const grown = settledMemory() - before;
    expect(result).toEqual({ non2xx: 0, total: 100_000 });
    expect(grown).toBeLessThan(20 * 1024 * 1024);
  }, 120_000);
});
