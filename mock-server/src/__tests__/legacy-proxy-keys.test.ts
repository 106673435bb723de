import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import { loadProject } from '@restbus/project-format';
import type { MockServer } from '../server/start-mock-server';
import { rawGet } from './raw-get';
import { createCapturingLogger, sampleFiles, serveProject, writeProject } from './sample-project';

// pino's number for warn.
const WARN = 40;

let backend: Server;
let remotePort: number;
const projects: string[] = [];
const servers: MockServer[] = [];

/** The older rest-tool layout's server/config.yml (before remoteServices), as its devProxy environment had it. */
const legacyConfig = (devProxy: string): string => `useEnvironment: development
environments:
  default:
    restapiRoot: ..
    documentRoot: ../webui
    useRemoteServices: false
  development: {}
  devProxy:
    port: 3006
${devProxy}
  devProxyWithRules:
    useRemoteServices: true
    remoteHost: 127.0.0.1
    remotePort: ${remotePort}
    remoteServices:
      - { uri: /monitoring, host: 127.0.0.1, port: 9, active: false }
`;

async function projectWith(devProxy: string): Promise<string> {
  const project = await writeProject({ ...sampleFiles(), 'server/config.yml': legacyConfig(devProxy) });
  projects.push(project);
  return project;
}

const forwarding = (): string =>
  `    useRemoteServices: true\n    remoteHost: 127.0.0.1\n    remotePort: ${remotePort}`;

beforeAll(async () => {
  backend = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ remote: true, url: req.url }));
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', () => resolve()));
  remotePort = (backend.address() as AddressInfo).port;
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  backend.closeAllConnections();
  await new Promise((resolve) => backend.close(resolve));
  for (const project of projects) await rm(project, { recursive: true, force: true });
});

const isRemote = (body: string): boolean => {
  try {
    return (JSON.parse(body) as { remote?: boolean }).remote === true;
  } catch {
    return false;
  }
};

describe('useRemoteServices, remoteHost and remotePort of the older rest-tool layout', () => {
  it('forward every call under serviceUrlPrefix to remoteHost:remotePort, and serve the rest here', async () => {
    const server = await serveProject(await projectWith(forwarding()), { environment: 'devProxy', watch: false });
    servers.push(server);
    // As upstream's apiProxy did: service calls go to the remote, even those the project describes.
    const users = await rawGet(server.url, '/rest/users?page=2');
    expect(JSON.parse(users.body)).toEqual({ remote: true, url: '/rest/users?page=2' });
    expect(isRemote((await rawGet(server.url, '/rest/customers/7')).body)).toBe(true);
    expect((await rawGet(server.url, '/index.html')).body).toBe('<h1>app</h1>\n');
    expect((await rawGet(server.url, '/data/info.txt')).body).toBe('data file\n');
    expect(isRemote((await rawGet(server.url, '/restaurant')).body)).toBe(false);
  });

  it('come after the environment’s own remoteServices rules, which still decide first', async () => {
    const server = await serveProject(await projectWith(forwarding()), {
      environment: 'devProxyWithRules',
      watch: false,
    });
    servers.push(server);
    expect((await rawGet(server.url, '/rest/monitoring/isAlive')).body).toBe('true\n');
    expect(isRemote((await rawGet(server.url, '/rest/users')).body)).toBe(true);
  });

  it('give one deprecation warning at load naming the file, the line and the modern equivalent', async () => {
    const project = await projectWith(forwarding());
    const { warnings } = await loadProject({ projectDir: project, environment: 'devProxy' });
    expect(warnings).toEqual([
      'server/config.yml:10: /environments/devProxy/useRemoteServices: useRemoteServices, remoteHost and ' +
        'remotePort are the older rest-tool layout, deprecated; read as remoteServices: [{ uri: /, host: ' +
        `127.0.0.1, port: ${remotePort}, active: true }] (every call under serviceUrlPrefix forwarded), which is ` +
        'what to write instead',
    ]);
    const log = createCapturingLogger('warn');
    const server = await serveProject(project, { environment: 'devProxy', watch: false, logger: log.logger });
    servers.push(server);
    await rawGet(server.url, '/rest/users');
    const logged = log.lines.filter((line) => line.level === WARN && String(line.msg).includes('useRemoteServices'));
    expect(logged.map((line) => line.msg)).toEqual(warnings);
  });

  it('forward nothing without useRemoteServices: true, with a warning when remoteHost or remotePort is set', async () => {
    const project = await projectWith(`    remoteHost: 127.0.0.1\n    remotePort: ${remotePort}`);
    const server = await serveProject(project, { environment: 'devProxy', watch: false });
    servers.push(server);
    expect((await rawGet(server.url, '/rest/monitoring/isAlive')).body).toBe('true\n');
    const { warnings } = await loadProject({ projectDir: project, environment: 'devProxy' });
    expect(warnings).toEqual([
      'server/config.yml:6: /environments/default/useRemoteServices: useRemoteServices, remoteHost and remotePort ' +
        'are the older rest-tool layout, deprecated, and forward nothing without useRemoteServices: true; remove ' +
        `them, or write remoteServices: [{ uri: /, host: 127.0.0.1, port: ${remotePort}, active: true }] to forward ` +
        'every call under serviceUrlPrefix',
    ]);
  });

  // rest-tool 0.5 wrote `useRemoteServices: false` beside `remoteServices: []` into every project it created.
  it('say nothing of useRemoteServices: false on its own, which forwards nothing in either layout', async () => {
    const project = await projectWith(forwarding());
    const { warnings } = await loadProject({ projectDir: project, environment: 'development' });
    expect(warnings).toEqual([]);
  });

  it.each([
    ['a remotePort that is not a port', 'remotePort: 99999', 12, 'remotePort: must be <= 65535'],
    ['a remotePort that is not a number', 'remotePort: soon', 12, 'remotePort: must be integer'],
    ['a remoteHost that is a URL', 'remoteHost: http://localhost', 11, 'remoteHost: must match pattern'],
    ['a remoteHost that is empty', "remoteHost: ''", 11, 'remoteHost: must NOT have fewer than 1 characters'],
  ])('refuse %s at load, naming file, line and property', async (_case, replacement, line, message) => {
    const key = replacement.split(':')[0];
    const project = await projectWith(forwarding().replace(new RegExp(`${key}: .*`), replacement));
    await expect(loadProject({ projectDir: project, environment: 'devProxy' })).rejects.toMatchObject({
      code: 'PROJECT_INVALID',
      message: expect.stringContaining(`server/config.yml:${line}: /environments/devProxy/${message}`),
    });
    await expect(serveProject(project, { environment: 'devProxy', watch: false })).rejects.toMatchObject({
      code: 'PROJECT_INVALID',
    });
  });

  it('refuse useRemoteServices: true without remoteHost or remotePort, naming file, line and property', async () => {
    const project = await projectWith('    useRemoteServices: true\n    remoteHost: 127.0.0.1');
    await expect(loadProject({ projectDir: project, environment: 'devProxy' })).rejects.toMatchObject({
      code: 'PROJECT_INVALID',
      message:
        'server/config.yml:10: /environments/devProxy/useRemoteServices: is true but remotePort is not set: it ' +
        'forwards every call under serviceUrlPrefix to remoteHost:remotePort; or write remoteServices: ' +
        '[{ uri: /, host: 127.0.0.1, port: <remotePort>, active: true }]',
    });
  });
});
