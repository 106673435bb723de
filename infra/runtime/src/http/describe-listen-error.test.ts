import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeListenError } from './describe-listen-error';

const howToChoose = (port: number) => `--port ${port} or DEMO_PORT=${port}`;
let holder: Server;
let port: number;

beforeAll(async () => {
  holder = createServer().listen(0);
  await once(holder, 'listening');
  port = (holder.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => holder.close(resolve)));

/** What listen() fails with on `port`, which the holder has. */
async function listenError(host?: string): Promise<unknown> {
  const server = createServer();
  server.listen(port, host);
  const [err] = (await once(server, 'error')) as [unknown];
  return err;
}

describe('describeListenError', () => {
  it('says the port is taken by another program and how to choose another', async () => {
    const described = describeListenError(await listenError(), { port, howToChoose });
    expect(described).toMatchObject({ code: 'PORT_UNAVAILABLE' });
    expect(described?.message).toBe(
      `port ${port} is already in use by another program; choose another port with --port ${port + 10} or DEMO_PORT=${port + 10}`,
    );
  });

  it('names the address when the program listens on one only', async () => {
    const described = describeListenError(await listenError('127.0.0.1'), { port, host: '127.0.0.1', howToChoose });
    expect(described?.message).toMatch(new RegExp(`^port ${port} on 127\\.0\\.0\\.1 is already in use`));
  });

  it("names restbus' own programs and docker compose as the usual holders of 3007", () => {
    const err = Object.assign(new Error('listen EADDRINUSE: address already in use :::3007'), { code: 'EADDRINUSE' });
    expect(describeListenError(err, { port: 3007, howToChoose })?.message).toBe(
      "port 3007 is already in use: the restbus gateway and a new project's mock server both default to 3007, so " +
        'another restbus process or a `docker compose up` stack probably holds it; choose another port with ' +
        '--port 3017 or DEMO_PORT=3017',
    );
  });

  it('says a port below 1024 needs privileges', () => {
    // Made by hand: the tests may run as root, which may listen on any port.
    const err = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), { code: 'EACCES' });
    expect(describeListenError(err, { port: 80, host: '0.0.0.0', howToChoose })?.message).toBe(
      'port 80 is not allowed for this user (ports below 1024 need root or the CAP_NET_BIND_SERVICE capability); ' +
        'choose another port with --port 3017 or DEMO_PORT=3017',
    );
  });

  it('leaves other errors alone', () => {
    const err = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere'), { code: 'ENOTFOUND' });
    expect(describeListenError(err, { port, howToChoose })).toBeUndefined();
  });
});
