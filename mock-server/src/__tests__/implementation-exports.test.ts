import { rm } from 'node:fs/promises';
import { checkProject } from '../server/check-project';
import type { MockServer } from '../server/start-mock-server';
import { rawGet } from './raw-get';
import { sampleFiles, serveProject, writeProject, type Files } from './sample-project';

// Names every object has through Object.prototype: none of them is an export of the module.
const INHERITED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', '__defineGetter__'];

/** The sample project without its /broken service, plus one service per implementation reference. */
function projectNaming(references: string[], extra: Files = {}): Files {
  const files: Files = { ...sampleFiles(), ...extra };
  const services = references.map((_, index) => `/named/n${index}`);
  files['config.yml'] = (files['config.yml'] as string).replace(
    '  - /broken\n',
    services.map((s) => `  - ${s}\n`).join(''),
  );
  references.forEach((reference, index) => {
    files[`services/named/n${index}/service.yml`] = `name: N${index}
description: names ${reference}
uriTemplate: /named/n${index}
methods:
  GET:
    summary: calls ${reference}
    implementation: ${reference}
    responses: [{ name: OK, statusCode: 200, reason: fine }]
`;
  });
  return files;
}

describe('implementation references', () => {
  const references = [...INHERITED.map((name) => `api.${name}`), 'inherits.fromPrototype', 'nothing.fn', 'throwing.fn'];
  const extra: Files = {
    'server/inherits.js':
      'module.exports = Object.create({ fromPrototype: (request, response) => response.json(1) });\n',
    'server/nothing.js': 'module.exports = null;\n',
    'server/throwing.js':
      "Object.defineProperty(exports, 'fn', { enumerable: true, get() { throw new Error('getter'); } });\n",
  };
  let project: string;
  let server: MockServer;
  beforeAll(async () => {
    project = await writeProject(projectNaming(references, extra));
    server = await serveProject(project, { watch: false });
  });
  afterAll(async () => {
    await server.close();
    await rm(project, { recursive: true, force: true });
  });

  const problemsOf = async (projectDir: string): Promise<string[]> =>
    checkProject({ projectDir }).then(
      () => [],
      (err: Error) => err.message.split('\n'),
    );

  it('--check reports an Object.prototype member as no exported function', async () => {
    const problems = await problemsOf(project);
    for (const name of INHERITED) {
      expect(problems).toContain(`server/api.js: no exported function ${name} (named by api.${name})`);
    }
  });

  it('--check reports a function the module only inherits, a null module and a throwing getter', async () => {
    const problems = await problemsOf(project);
    expect(problems).toContain(
      'server/inherits.js: no exported function fromPrototype (named by inherits.fromPrototype)',
    );
    expect(problems).toContain('server/nothing.js: no exported function fn (named by nothing.fn)');
    expect(problems).toContain('server/throwing.js: no exported function fn (named by throwing.fn)');
  });

  it('answers each of them with its descriptor and an X-Mock-Warning, without calling what it names', async () => {
    for (let index = 0; index < references.length; index++) {
      const response = await rawGet(server.url, `/rest/named/n${index}`);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({ name: `N${index}`, uriTemplate: `/named/n${index}` });
      expect(response.headers['x-mock-warning']).toMatch(/has no function|is not available/);
      expect(response.body).not.toContain(project);
    }
  });

  it('answers 500 IMPLEMENTATION_UNAVAILABLE for each of them with --strict, instead of leaving the request open', async () => {
    const strict = await serveProject(project, { watch: false, strict: true });
    try {
      for (let index = 0; index < references.length; index++) {
        const response = await rawGet(strict.url, `/rest/named/n${index}`);
        expect(response.status).toBe(500);
        expect(JSON.parse(response.body)).toMatchObject({ code: 'IMPLEMENTATION_UNAVAILABLE' });
        expect(response.body).not.toContain(project);
      }
    } finally {
      await strict.close();
    }
  });

  it('still calls a function the module exports itself', async () => {
    const response = await rawGet(server.url, '/rest/monitoring/isAlive');
    expect(response.status).toBe(200);
    expect(response.body).toBe('true\n');
  });
});
