import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { validSampleFiles, writeProject, type Files } from './sample-project';
import { MOCK_MAIN, runMockMain, type ProgramRun } from './run-mock-main';

// restbus-mock as an upstream rest-tool test harness runs it: the built program in a real Node (whose require
// reports a missing package; jest's crashes on one), read through its stdout.
const LISTENING = /^Express server listening on port (\d+)$/;
// pino's number for warn.
const WARN = 40;

/** A project as upstream rest-tool 0.5 generated it: api.js needs rest-tool-common, which the project lacks. */
function upstreamProject(): Files {
  const files = validSampleFiles();
  return {
    ...files,
    'config.yml': (files['config.yml'] as string).replace('  - /session\n', '  - /session\n  - /customers\n'),
    'server/api.js': `var services = require('rest-tool-common').services;
var server = require('./server.js');
exports.getCustomers = function (request, response, serviceDesc) {
  server.writeResponse(response, services.getMockResponseBody('GET', serviceDesc));
};
`,
    'server/monitoring.js': `exports.isAlive = function (request, response) {
  response.header('Content-Type', 'application/json');
  response.write('true');
  response.end('\\n');
};
`,
    'services/customers/service.yml': `name: Customers
description: The customers
uriTemplate: /customers
methods:
  GET:
    summary: List the customers
    implementation: api.getCustomers
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: getCustomers-responseBody.json }
`,
    'services/customers/getCustomers-responseBody.json': '[{"id":1,"name":"Acme"}]\n',
  };
}

let project: string;
let child: ChildProcessWithoutNullStreams;
const plain: string[] = [];
const logged: Array<{ level: number; msg: string; url?: string }> = [];
let url: string;

/** Resolves once a JSON log line passes `test`. */
function logLine(test: (line: (typeof logged)[number]) => boolean): Promise<(typeof logged)[number]> {
  return new Promise((found, failed) => {
    const poll = setInterval(() => {
      const line = logged.find(test);
      if (line) {
        clearInterval(poll);
        found(line);
      } else if (child.exitCode !== null) {
        clearInterval(poll);
        failed(new Error(`restbus-mock exited with ${child.exitCode}: ${plain.join('\n')}`));
      }
    }, 10);
  });
}

beforeAll(async () => {
  if (!existsSync(MOCK_MAIN)) throw new Error(`${MOCK_MAIN} is missing: run npm run build before these tests`);
  project = await writeProject(upstreamProject());
  child = spawn(process.execPath, [MOCK_MAIN, '--project', project, '--port', '0', '--host', '127.0.0.1'], {
    env: { ...process.env, LOG_FORMAT: 'json' },
  });
  createInterface({ input: child.stdout }).on('line', (text) => {
    if (text.startsWith('{')) logged.push(JSON.parse(text) as (typeof logged)[number]);
    else plain.push(text);
  });
  url = (await logLine((line) => line.msg === 'serving')).url as string;
});
afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((done) => child.on('close', done));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(project, { recursive: true, force: true });
});

describe('restbus-mock under an upstream rest-tool test harness', () => {
  it('prints "Express server listening on port <N>" once on stdout, N being the port it listens on', async () => {
    const announced = plain.filter((line) => LISTENING.test(line));
    expect(announced).toHaveLength(1);
    const port = Number(LISTENING.exec(announced[0])?.[1]);
    expect(port).toBe(Number(new URL(url).port));
    expect(await (await fetch(`http://127.0.0.1:${port}/rest/monitoring/isAlive`)).text()).toBe('true\n');
  });

  it('does not print the line again when the project is reloaded', async () => {
    await writeFile(join(project, 'services/customers/getCustomers-responseBody.json'), '[]\n');
    await logLine((line) => line.msg === 'project reloaded');
    expect(plain.filter((line) => LISTENING.test(line))).toHaveLength(1);
    await writeFile(
      join(project, 'services/customers/getCustomers-responseBody.json'),
      upstreamProject()['services/customers/getCustomers-responseBody.json'],
    );
    await logLine((line) => line.msg === 'project reloaded' && logged.filter((l) => l.msg === line.msg).length > 1);
  });

  it('answers a service whose api.js needs a missing package with its OK mock file and an X-Mock-Warning', async () => {
    const response = await fetch(`${url}/rest/customers`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([{ id: 1, name: 'Acme' }]);
    expect(response.headers.get('x-mock-warning')).toBe(
      'the implementation api.getCustomers is not available: the module server/api.js failed to load (see the ' +
        'server log); answered with services/customers/getCustomers-responseBody.json',
    );
  });

  it('logged why at warn level once per load, naming server/api.js and the missing package', () => {
    const warnings = logged.filter((line) => line.level === WARN && line.msg.startsWith('server/api.js'));
    // Once at start and once for each of the two reloads above.
    expect(warnings).toHaveLength(3);
    expect(warnings[0].msg).toMatch(
      /^server\/api\.js: failed to load: it requires the package rest-tool-common, which is not installed \(npm install in the project\): its services answer with their OK mock file/,
    );
    expect(warnings[0].msg).not.toContain('Require stack');
  });

  it('sends the Content-Type an implementation set with response.header exactly as set', async () => {
    const response = await fetch(`${url}/rest/monitoring/isAlive`);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe('true\n');
  });
});

/** `restbus-mock --check` on a project, as a real process: its exit code and what it printed. */
const check = (projectDir: string, ...args: string[]): Promise<ProgramRun> =>
  runMockMain(['--project', projectDir, '--check', ...args]);

describe('restbus-mock --check on a project whose packages are not installed', () => {
  const MISSING_PACKAGE =
    'restbus-mock: warning: server/api.js: failed to load: it requires the package rest-tool-common, which is not ' +
    'installed (npm install in the project)\n';

  it('passes with a warning: the project is sound, its npm install has not been run', async () => {
    const result = await check(project);
    expect(result.stderr).toBe(MISSING_PACKAGE);
    expect(result.code).toBe(0);
  });

  it('fails with --strict, and fails without it when a module is broken in itself', async () => {
    expect((await check(project, '--strict')).code).toBe(1);
    const broken = await writeProject({ ...upstreamProject(), 'server/api.js': 'exports.getCustomers = (;\n' });
    try {
      const result = await check(broken);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^restbus-mock: server\/api\.js: failed to load: /m);
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});

describe('restbus-mock --strict on the command line', () => {
  it('answers a service whose api.js cannot load with a 500 JSON error instead of its mock file', async () => {
    const strictProject = await writeProject(upstreamProject());
    const strict = spawn(
      process.execPath,
      [MOCK_MAIN, '--project', strictProject, '--port', '0', '--host', '127.0.0.1', '--strict'],
      { env: { ...process.env, LOG_FORMAT: 'json' } },
    );
    try {
      const serving = await new Promise<string>((found) => {
        createInterface({ input: strict.stdout }).on('line', (text) => {
          if (!text.startsWith('{')) return;
          const line = JSON.parse(text) as { msg: string; url?: string };
          if (line.msg === 'serving' && line.url) found(line.url);
        });
      });
      const response = await fetch(`${serving}/rest/customers`);
      expect(response.status).toBe(500);
      expect(response.headers.get('x-mock-warning')).toBeNull();
      expect(await response.json()).toMatchObject({ code: 'IMPLEMENTATION_UNAVAILABLE' });
    } finally {
      const exited = new Promise((done) => strict.on('close', done));
      strict.kill('SIGTERM');
      await exited;
      await rm(strictProject, { recursive: true, force: true });
    }
  });
});
