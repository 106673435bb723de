import { execFile } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, runTool } from './tool-helpers';

const SCRIPT = join(__dirname, '..', '..', '..', 'bin', 'rest-tool-docker');
const COMPOSE_FILE = join(__dirname, '..', '..', '..', 'docker-compose.yml');

/** A `docker` that has compose v2 and, instead of running anything, prints the arguments it was given, one a line. */
const FAKE_DOCKER = `#!/bin/sh
if [ "$1" = compose ] && [ "$2" = version ]; then exit 0; fi
printf '%s\\n' "$@"
`;

interface ScriptRun {
  code: number;
  /** What docker was asked to do, one argument a line. */
  args: string[];
  stderr: string;
}

describe('bin/rest-tool-docker', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let fakeBin: string;
  beforeEach(async () => {
    temp = await makeTempDir();
    fakeBin = join(temp.dir, 'bin');
    await mkdir(fakeBin);
    await writeFile(join(fakeBin, 'docker'), FAKE_DOCKER);
    await chmod(join(fakeBin, 'docker'), 0o755);
  });
  afterEach(() => temp.remove());

  const runScript = (cwd: string, args: string[], env: Record<string, string> = {}): Promise<ScriptRun> =>
    new Promise((resolve) => {
      execFile(
        SCRIPT,
        args,
        { cwd, env: { PATH: `${fakeBin}:/usr/bin:/bin`, ...env }, encoding: 'utf8' },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
          resolve({ code, args: stdout.split('\n').filter(Boolean), stderr });
        },
      );
    });
  const createProject = async (args: string[] = []): Promise<string> => {
    expect((await runTool(temp.dir, ['create', 'demo', ...args])).code).toBe(0);
    return join(temp.dir, 'demo');
  };
  /** The docker arguments of `serve`: compose on the repository's file, the published port, the server's port. */
  const serveArgs = (published: string, port: number, extra: string[] = []): string[] => [
    'compose',
    '-f',
    COMPOSE_FILE,
    '--profile',
    'tool',
    'run',
    '--rm',
    '-T',
    '-p',
    published,
    '--entrypoint',
    'node',
    'tool',
    'server/server',
    '--port',
    String(port),
    '--host',
    '0.0.0.0',
    ...extra,
  ];

  it('serves a project on its servicePort, the port its tests and docs call, and says where and from which setting', async () => {
    const project = await createProject(['--port', '3017']);
    const result = await runScript(project, ['serve']);
    expect(result.code).toBe(0);
    expect(result.args).toEqual(serveArgs('127.0.0.1:3017:3017', 3017));
    expect(result.stderr).toBe(
      'rest-tool-docker: serving the project on 127.0.0.1:3017, the servicePort of config.yml ' +
        '(REST_TOOL_PORT=<port> publishes it on another host port)\n',
    );
  });

  it('serves a project made without --port on 3007, as the specification makes it', async () => {
    const project = await createProject();
    expect((await runScript(project, ['serve', 'devProxy'])).args).toEqual(
      serveArgs('127.0.0.1:3007:3007', 3007, ['devProxy']),
    );
  });

  it('publishes on REST_TOOL_PORT when it is set, and on a port Docker picks when it is set empty', async () => {
    const project = await createProject(['--port', '3017']);
    const moved = await runScript(project, ['serve'], { REST_TOOL_PORT: '4000' });
    expect(moved.args).toEqual(serveArgs('127.0.0.1:4000:3017', 3017));
    expect(moved.stderr).toBe(
      'rest-tool-docker: serving the project on 127.0.0.1:4000 (REST_TOOL_PORT); its tests and docs call ' +
        'servicePort 3017 of config.yml (API_BASE_URL=http://localhost:4000/rest node --test test/ tests it there)\n',
    );
    expect((await runScript(project, ['serve'], { REST_TOOL_PORT: '' })).args).toEqual(
      serveArgs('127.0.0.1::3017', 3017),
    );
    expect((await runScript(project, ['serve'], { REST_TOOL_BIND: '0.0.0.0' })).args).toEqual(
      serveArgs('0.0.0.0:3017:3017', 3017),
    );
  });

  it('reads servicePort however config.yml spells it: quoted, with a comment', async () => {
    const project = await createProject();
    await writeFile(join(project, 'config.yml'), "projectName: demo\nservicePort: '3027'   # moved\n");
    expect((await runScript(project, ['serve'])).args).toEqual(serveArgs('127.0.0.1:3027:3027', 3027));
  });

  it('refuses to serve a folder without config.yml, naming the folder, and runs nothing', async () => {
    const result = await runScript(temp.dir, ['serve']);
    expect(result).toEqual({
      code: 1,
      args: [],
      stderr: `rest-tool-docker: ${temp.dir} has no config.yml: serve runs the project of the folder you are in\n`,
    });
  });

  it('refuses to serve a config.yml whose servicePort is not a port, naming the file', async () => {
    const project = await createProject();
    await writeFile(join(project, 'config.yml'), 'projectName: demo\nservicePort: soon\n');
    const result = await runScript(project, ['serve']);
    expect(result).toEqual({
      code: 1,
      args: [],
      stderr: `rest-tool-docker: ${join(project, 'config.yml')} has no servicePort (a port number), the port to serve on\n`,
    });
  });

  it('passes every other command to the tool as it is: create --port makes the project for the port it is served on', async () => {
    const result = await runScript(temp.dir, ['create', 'demo', '--port', '3017']);
    expect(result.args).toEqual([
      'compose',
      '-f',
      COMPOSE_FILE,
      '--profile',
      'tool',
      'run',
      '--rm',
      '-T',
      'tool',
      'create',
      'demo',
      '--port',
      '3017',
    ]);
  });
});
