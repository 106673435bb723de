import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, runMockCheck, runNode, runTool } from './tool-helpers';

/** rest-tool as users run it: the built program (jest's global setup builds it). */
const TOOL_MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

describe('rest-tool validate', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let project: string;
  const edit = async (file: string, from: string | RegExp, to: string): Promise<void> => {
    const path = join(project, file);
    await writeFile(path, (await readFile(path, 'utf8')).replace(from, to));
  };

  beforeEach(async () => {
    temp = await makeTempDir();
    await runTool(temp.dir, ['create', 'p']);
    project = join(temp.dir, 'p');
    await runTool(project, ['add', '-t', 'COLLECTION', '-p', '/users', '-u', '/users', '-n', 'Users']);
  });
  afterEach(() => temp.remove());

  it('exits 0 for a created project with added services', async () => {
    const result = await runTool(project, ['validate']);
    expect(result).toEqual({ code: 0, stdout: 'the project is valid: 2 services\n', stderr: '' });
  });

  it('validates the project of another config file with -c', async () => {
    expect((await runTool(temp.dir, ['validate', '-c', 'p/config.yml'])).code).toBe(0);
  });

  it('reports a descriptor that breaks the schema with the file, line and path, as the mock server does', async () => {
    await edit('services/users/service.yml', /\n *summary: List all the Users/, '');
    const result = await runTool(project, ['validate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^rest-tool: services\/users\/service\.yml:\d+: \/methods\/GET: must have required property 'summary'$/m,
    );
  });

  it('refuses a descriptor whose aliases expand past the bound, with file and line, as the mock server does', async () => {
    const path = join(project, 'services/users/service.yml');
    const bomb = `big: &big "${'x'.repeat(20_000)}"\nmany: [${Array(999).fill('*big').join(', ')}]\n`;
    await writeFile(path, `${await readFile(path, 'utf8')}${bomb}`);
    const result = await runTool(project, ['validate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^rest-tool: services\/users\/service\.yml:\d+: the document grows past 8 MiB once its aliases are expanded$/m,
    );
  });

  it('reports every mock file and module that is missing, one line each, the files only docs and tests read as warnings', async () => {
    await rm(join(project, 'services', 'users', 'getCollection-responseBody.json'));
    await rm(join(project, 'services', 'users', 'postCollection-requestBody.json'));
    await rm(join(project, 'server', 'monitoring.js'));
    const result = await runTool(project, ['validate']);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'rest-tool: services/monitoring/isAlive/service.yml:11: /methods/GET/implementation: server/monitoring.js does not exist',
      expect.stringMatching(
        /^rest-tool: services\/users\/service\.yml:\d+: \/methods\/GET\/responses\/0\/mockBody: the file getCollection-responseBody\.json does not exist$/,
      ),
      expect.stringMatching(
        /^rest-tool: warning: .*\/methods\/POST\/request\/mockBody: the file postCollection-requestBody\.json does not exist \(only documentation and generated tests read it\)$/,
      ),
      expect.stringMatching(
        /^rest-tool: warning: .*\/methods\/POST\/testCases\/0\/request\/mockBody: the file postCollection-requestBody\.json does not exist/,
      ),
    ]);
  });

  it('reports, line for line, what restbus-mock --check reports on the same project, and exits as it does', async () => {
    await rm(join(project, 'services', 'users', 'postCollection-requestBody.json'));
    const withoutPrefix = (text: string, prefix: string): string[] =>
      text
        .trimEnd()
        .split('\n')
        .map((line) => line.replace(prefix, ''));
    const compare = async (): Promise<void> => {
      const ours = await runTool(project, ['validate']);
      const mock = await runMockCheck(project);
      expect(ours.code).toBe(mock.code);
      expect(withoutPrefix(ours.stderr, 'rest-tool: ')).toEqual(withoutPrefix(mock.stderr, 'restbus-mock: '));
    };
    await compare();
    await rm(join(project, 'server', 'monitoring.js'));
    await compare();
  });

  it('exits 0 with a warning for a dangling validationSchema, which only documentation and tests read', async () => {
    await edit(
      'services/users/service.yml',
      /(mockBody: getCollection-responseBody\.json)/,
      '$1\n        validationSchema: gone-schema.json',
    );
    const result = await runTool(project, ['validate']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('the project is valid: 2 services\n');
    expect(result.stderr).toMatch(
      /^rest-tool: warning: services\/users\/service\.yml:\d+: \/methods\/GET\/responses\/0\/validationSchema: the file gone-schema\.json does not exist \(only documentation and generated tests read it\)\n$/,
    );
  });

  it('exits 1 on the same warning with --strict', async () => {
    await edit(
      'services/users/service.yml',
      /(mockBody: getCollection-responseBody\.json)/,
      '$1\n        validationSchema: gone-schema.json',
    );
    const result = await runTool(project, ['validate', '--strict']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /validationSchema: the file gone-schema\.json does not exist .*\(an error with --strict\)/,
    );
  });

  it('refuses a mock file outside the project', async () => {
    await edit('services/users/service.yml', 'mockBody: getCollection-responseBody.json', 'mockBody: ../../../x.json');
    const result = await runTool(project, ['validate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/mockBody: \.\.\/\.\.\/\.\.\/x\.json is outside the project/);
  });

  it('refuses two services answering the same route', async () => {
    await runTool(project, ['add', '-p', '/users/user', '-u', '/people/{id}', '-n', 'User']);
    await edit('services/users/user/service.yml', 'uriTemplate: /people/{id}', 'uriTemplate: /users');
    const result = await runTool(project, ['validate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GET \/users is also served by services\/users\/service\.yml/);
  });

  it('refuses, through the built rest-tool and restbus-mock --check alike, two services whose paths differ only in case, naming both files and lines', async () => {
    // rest-tool add refuses them; a hand edit (or a merge) does not.
    await runTool(project, ['add', '-p', '/people', '-u', '/people', '-n', 'People']);
    await runTool(project, ['add', '-p', '/a', '-u', '/a/{id}', '-n', 'A']);
    await runTool(project, ['add', '-p', '/b', '-u', '/b/{key}', '-n', 'B']);
    await edit('services/people/service.yml', 'uriTemplate: /people', 'uriTemplate: /Users');
    await edit('services/b/service.yml', 'uriTemplate: /b/{key}', 'uriTemplate: /A/{key}');
    const ours = await runNode(project, [TOOL_MAIN, 'validate']);
    const mock = await runMockCheck(project);
    expect(ours.code).toBe(1);
    expect(mock.code).toBe(1);
    const withoutPrefix = (text: string, prefix: string): string[] =>
      text
        .trimEnd()
        .split('\n')
        .map((line) => line.replace(prefix, ''));
    const sameRoute =
      'the same route to the mock server (paths match without regard to case, parameter names or a trailing slash)';
    expect(withoutPrefix(ours.stderr, 'rest-tool: ')).toEqual([
      `services/people/service.yml:8: /uriTemplate: GET /Users is also served by services/users/service.yml:8 as /users, ${sameRoute}`,
      `services/b/service.yml:8: /uriTemplate: GET, PUT, DELETE /A/{key} are also served by services/a/service.yml:8 as /a/{id}, ${sameRoute}`,
    ]);
    expect(withoutPrefix(mock.stderr, 'restbus-mock: ')).toEqual(withoutPrefix(ours.stderr, 'rest-tool: '));
  });

  describe('the port the project is served on and the one its tests and docs call', () => {
    // config.yml of `rest-tool create`: servicePort on line 10, baseUrl on line 11; server/config.yml: the
    // development environment's port on line 19.
    it('warns, naming config.yml and its lines, when baseUrl names another port than servicePort', async () => {
      await edit('config.yml', 'baseUrl: http://localhost:3007/rest', 'baseUrl: http://localhost:3017/rest');
      const result = await runTool(project, ['validate']);
      expect(result).toEqual({
        code: 0,
        stdout: 'the project is valid: 2 services\n',
        stderr:
          'rest-tool: warning: config.yml:11: /baseUrl: http://localhost:3017/rest names port 3017, but servicePort ' +
          '(config.yml:10) is 3007: the generated tests and docs call baseUrl, the mock server listens on servicePort; ' +
          'give both the same port\n',
      });
    });

    it('warns, naming server/config.yml and its line, when the environment node server/server starts listens elsewhere', async () => {
      await edit('config.yml', 'servicePort: 3007', 'servicePort: 3017');
      await edit('config.yml', 'baseUrl: http://localhost:3007/rest', 'baseUrl: http://localhost:3017/rest');
      const result = await runTool(project, ['validate']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(
        'rest-tool: warning: server/config.yml:19: /environments/development/port: the development environment ' +
          '(the one node server/server starts) listens on 3007, but servicePort (config.yml:10) is 3017: the generated ' +
          'tests and docs call http://localhost:3017/rest; give both the same port\n',
      );
    });

    it("counts the port a URL leaves out as its scheme's: https://api.example.com is port 443", async () => {
      await edit('config.yml', 'servicePort: 3007', 'servicePort: 443');
      await edit('config.yml', 'baseUrl: http://localhost:3007/rest', 'baseUrl: https://api.example.com/rest');
      await edit('server/config.yml', /port: 3007/g, 'port: 443');
      expect(await runTool(project, ['validate'])).toMatchObject({ code: 0, stderr: '' });
    });

    it('warns when baseUrl is not a URL the generated tests can call', async () => {
      await edit('config.yml', 'baseUrl: http://localhost:3007/rest', 'baseUrl: localhost:3007/rest');
      const result = await runTool(project, ['validate']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(
        'rest-tool: warning: config.yml:11: /baseUrl: "localhost:3007/rest" is not an http(s) URL such as ' +
          'http://localhost:3007/rest; the generated tests and docs call it\n',
      );
    });

    it('exits 1 on a port that disagrees with --strict', async () => {
      await edit('config.yml', 'baseUrl: http://localhost:3007/rest', 'baseUrl: http://localhost:3017/rest');
      const result = await runTool(project, ['validate', '--strict']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^rest-tool: config\.yml:11: \/baseUrl: .* give both the same port \(an error with --strict\)\n$/,
      );
    });
  });

  it('refuses a config.yml that is not valid YAML, naming the line', async () => {
    await edit('config.yml', 'servicePort: 3007', 'servicePort: [3007');
    const result = await runTool(project, ['validate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rest-tool: config\.yml:\d+: /);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
