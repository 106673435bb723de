import { createServer, type Server } from 'node:http';
import { readErrorCode } from '../errors/read-caught-error';
import { isRestbusError } from '../errors/restbus-error';
import { listenHttpServer } from './listen-http-server';

const servers: Server[] = [];
const newServer = (): Server => {
  const server = createServer((_req, res) => res.end('ok'));
  servers.push(server);
  return server;
};
const howToChoose = (port: number): string => `--port ${port}`;

afterEach(async () => {
  await Promise.all(
    servers
      .splice(0)
      .map((server) => new Promise((resolve) => (server.listening ? server.close(resolve) : resolve(0)))),
  );
});

describe('listenHttpServer', () => {
  it('gives the port the system chose for 0, and a URL on that port that answers', async () => {
    const { port, url } = await listenHttpServer(newServer(), { port: 0, host: '127.0.0.1', howToChoose });

    expect(port).toBeGreaterThan(0);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(await (await fetch(url)).text()).toBe('ok');
  });

  it('names localhost in the URL of a server that listens on every address', async () => {
    const { port, url } = await listenHttpServer(newServer(), { port: 0, howToChoose });

    expect(url).toBe(`http://localhost:${port}`);
  });

  it('rejects a taken port with PORT_UNAVAILABLE naming the port and how to choose another, and leaves no listener', async () => {
    const { port } = await listenHttpServer(newServer(), { port: 0, host: '127.0.0.1', howToChoose });
    const second = newServer();

    const err: unknown = await listenHttpServer(second, { port, host: '127.0.0.1', howToChoose }).catch((e) => e);

    expect(isRestbusError(err) && err.code).toBe('PORT_UNAVAILABLE');
    expect(String(err)).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(String(err)).toContain('--port');
    expect(second.listening).toBe(false);
    expect(second.listenerCount('error')).toBe(0);
  });

  it('rejects any other failure as it came', async () => {
    const err: unknown = await listenHttpServer(newServer(), {
      port: 0,
      host: 'no-such-host.invalid',
      howToChoose,
    }).catch((e) => e);

    expect(isRestbusError(err)).toBe(false);
    // The resolver's own error: the name does not resolve (or, offline, cannot be looked up).
    expect(readErrorCode(err)).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
  });
});
