import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MockServer } from '../server/start-mock-server';
import { rawGet } from './raw-get';
import { eventually, sampleFiles, serveProject, writeProject, type Files } from './sample-project';

// Implementations that never answer, answer late or fail late. The late ones act on the response's 'finish', i.e.
// right after the deadline's answer went out, so that nothing here depends on how long anything takes.
const SLOW_JS = `const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const note = (name, text) => writeFileSync(join(__dirname, name), text);
exports.silent = () => {};
exports.pending = () => new Promise(() => {});
exports.afterReturn = (request, response) => {
  setImmediate(() => response.json({ answered: 'after returning' }));
};
exports.lateAnswer = (request, response) => {
  response.on('finish', () => setImmediate(() => {
    let outcome = 'dropped';
    try {
      response.status(200).set('x-late', '1').json({ late: true });
      response.write('more');
      response.end('end');
    } catch (err) {
      outcome = 'threw ' + err.code;
    }
    setImmediate(() => note('late-answer.txt', outcome));
  }));
};
exports.lateRejection = (request, response) =>
  new Promise((resolve, reject) => {
    response.on('finish', () => setImmediate(() => {
      reject(new Error('late failure'));
      setImmediate(() => note('late-rejection.txt', 'rejected'));
    }));
  });
`;

function slowProject(): Files {
  const files: Files = { ...sampleFiles(), 'server/slow.js': SLOW_JS };
  files['server/config.yml'] = (files['server/config.yml'] as string).replace(
    '    remoteServices: []\n',
    '    remoteServices: []\n    implementationTimeout: 300\n',
  );
  const names = ['silent', 'pending', 'afterReturn', 'lateAnswer', 'lateRejection'];
  files['config.yml'] = (files['config.yml'] as string).replace(
    '  - /broken\n',
    names.map((name) => `  - /slow/${name}\n`).join(''),
  );
  for (const name of names) {
    files[`services/slow/${name}/service.yml`] = `name: ${name}
description: An implementation that takes its time
uriTemplate: /slow/${name}
methods:
  GET:
    summary: ${name}
    implementation: slow.${name}
    responses: [{ name: OK, statusCode: 200, reason: fine }]
`;
  }
  return files;
}

let project: string;
let server: MockServer;
beforeAll(async () => {
  project = await writeProject(slowProject());
  server = await serveProject(project, { watch: false });
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

async function call(name: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/rest/slow/${name}`);
  return { status: response.status, body: await response.text(), headers: Object.fromEntries(response.headers) };
}

describe('an implementation that does not answer', () => {
  it('answers 500 IMPLEMENTATION_TIMEOUT as JSON when the function returns without answering', async () => {
    const response = await call('silent');
    expect(response.status).toBe(500);
    const body = JSON.parse(response.body) as { error: string; code: string };
    expect(body.code).toBe('IMPLEMENTATION_TIMEOUT');
    expect(body.error).toBe('the implementation slow.silent did not answer within 300 ms');
  });

  it('answers 500 IMPLEMENTATION_TIMEOUT when its promise never settles', async () => {
    const response = await call('pending');
    expect(response.status).toBe(500);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'IMPLEMENTATION_TIMEOUT' });
  });

  it('still lets a function answer after it returned, within the deadline', async () => {
    const response = await call('afterReturn');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ answered: 'after returning' });
  });
});

describe('after the deadline', () => {
  it('drops a late answer without an error that could stop the server', async () => {
    const response = await call('lateAnswer');
    expect(JSON.parse(response.body)).toMatchObject({ code: 'IMPLEMENTATION_TIMEOUT' });
    expect(response.headers['x-late']).toBeUndefined();
    const outcome = join(project, 'server', 'late-answer.txt');
    await eventually(async () => (await readFile(outcome, 'utf8')) !== '');
    expect(await readFile(outcome, 'utf8')).toBe('dropped');
    expect((await rawGet(server.url, '/rest/monitoring/isAlive')).body).toBe('true\n');
  });

  it('ignores a late rejection', async () => {
    const response = await call('lateRejection');
    expect(JSON.parse(response.body)).toMatchObject({ code: 'IMPLEMENTATION_TIMEOUT' });
    await eventually(async () => (await readFile(join(project, 'server', 'late-rejection.txt'), 'utf8')) !== '');
    expect((await rawGet(server.url, '/rest/monitoring/isAlive')).body).toBe('true\n');
  });
});
