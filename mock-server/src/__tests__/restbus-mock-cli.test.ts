import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { eventually, sampleFiles, shopConfig, validSampleFiles, writeProject } from './sample-project';
import { MOCK_MAIN, runMockMain } from './run-mock-main';

let project: string;
beforeAll(async () => {
  if (!existsSync(MOCK_MAIN)) throw new Error(`${MOCK_MAIN} is missing: run npm run build before these tests`);
  project = await writeProject(sampleFiles());
});
afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe('restbus-mock', () => {
  it('--check exits 0 for a valid project', async () => {
    const valid = await writeProject(validSampleFiles());
    const result = await runMockMain(['--project', valid, '--check']);
    expect(result.stdout).toMatch(/is valid: 6 services, environment development/);
    expect(result.code).toBe(0);
    await rm(valid, { recursive: true, force: true });
  });

  it('--check exits 1 listing every problem with file and line, never a stack trace', async () => {
    const broken = await writeProject({
      ...sampleFiles(),
      'services/echo/service.yml': 'name: Echo\nuriTemplate: /echo\nmethods: {}\n',
      'services/report/service.yml': 'name: [oops\n',
    });
    const result = await runMockMain(['--project', broken, '--check']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "restbus-mock: services/echo/service.yml:1: /: must have required property 'description'",
    );
    expect(result.stderr).toContain('services/echo/service.yml:3: /methods: must NOT have fewer than 1 properties');
    expect(result.stderr).toMatch(/services\/report\/service\.yml:\d+: /);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    await rm(broken, { recursive: true, force: true });
  });

  it('--check exits 1 when a module or function that a descriptor names is missing', async () => {
    // The sample's /broken service names missing.fn and api.nope.
    const failed = await runMockMain(['--project', project, '--check']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('server/api.js: no exported function nope (named by api.nope)');
    expect(failed.stderr).toMatch(
      /^restbus-mock: services\/broken\/service\.yml:\d+: \/methods\/\w+\/implementation: server\/missing\.js does not exist$/m,
    );
  });

  it('exits 1 naming the known environments for an unknown one', async () => {
    const result = await runMockMain(['staging', '--project', project, '--check']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'restbus-mock: server/config.yml: unknown environment "staging"; known: default, development, secured\n',
    );
  });

  it('--check exits 1 naming both service.yml files and lines for routes that differ only in case or parameter names', async () => {
    const service = (name: string, uriTemplate: string): string =>
      `name: ${name}\ndescription: ${name}\nuriTemplate: ${uriTemplate}\nmethods:\n  GET: { summary: Read, responses: [{ name: OK, statusCode: 200, reason: fine }] }\n`;
    const twins = await writeProject({
      'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n',
      'config.yml': shopConfig(['/customers', '/people', '/a', '/b']),
      'services/customers/service.yml': service('Customers', '/customers'),
      'services/people/service.yml': service('People', '/Customers'),
      'services/a/service.yml': service('A', '/a/{id}'),
      'services/b/service.yml': service('B', '/A/{key}'),
    });
    const result = await runMockMain(['--project', twins, '--check']);
    await rm(twins, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'restbus-mock: services/people/service.yml:3: /uriTemplate: GET /Customers is also served by services/customers/service.yml:3 as /customers, the same route to the mock server (paths match without regard to case, parameter names or a trailing slash)',
      'services/b/service.yml:3: /uriTemplate: GET /A/{key} is also served by services/a/service.yml:3 as /a/{id}, the same route to the mock server (paths match without regard to case, parameter names or a trailing slash)',
    ]);
  });

  it('exits non-zero with a suggestion for an unknown option', async () => {
    const result = await runMockMain(['--projekt', project]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--project');
  });

  describe('serving', () => {
    let child: ChildProcess;
    let url: string;
    beforeAll(async () => {
      child = spawn(process.execPath, [MOCK_MAIN, '--project', project, '--port', '0', '--host', '127.0.0.1']);
      url = await new Promise<string>((found, failed) => {
        const lines = createInterface({ input: child.stdout! });
        lines.on('line', (line) => {
          // Besides its JSON log, the program prints upstream's plain "Express server listening on port N".
          if (!line.startsWith('{')) return;
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'serving' && entry.url) found(entry.url);
        });
        child.on('exit', (code) => failed(new Error(`restbus-mock exited with ${code}`)));
      });
    });
    afterAll(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });

    it('serves isAlive, then the edited implementation module without a restart', async () => {
      expect(await (await fetch(`${url}/rest/monitoring/isAlive`)).text()).toBe('true\n');
      await writeFile(
        join(project, 'server/monitoring.js'),
        `exports.isAlive = (req, res) => res.type('application/json').send('false\\n');\n`,
      );
      await eventually(async () => (await (await fetch(`${url}/rest/monitoring/isAlive`)).text()) === 'false\n');
    });

    it('stops with exit code 0 on SIGTERM', async () => {
      const exited = new Promise<number | null>((done) => child.on('exit', done));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    });
  });
});
