import { freePort } from '@restbus/infra/testing';
import { sampleFiles } from './sample-project';
import { useMockProgram } from './start-mock-program';

const DEBUG = 20;
const INFO = 30;
const WARN = 40;
const ERROR = 50;

const { serve, log } = useMockProgram();

let sent = 0;
/** A call with its own X-Request-Id, and the lines the server logged about it (once there are some). */
async function callAndRead(url: string, init: RequestInit = {}) {
  const reqId = `quiet-${++sent}`;
  const response = await fetch(url, { ...init, headers: { ...init.headers, 'x-request-id': reqId } });
  const text = await response.text();
  const about = () => log().filter((line) => line.reqId === reqId);
  // The answer can reach the client before the line reaches this process.
  for (let tries = 0; about().length === 0 && tries < 100; tries++) await new Promise((done) => setTimeout(done, 20));
  return { response, text, lines: about() };
}

const postJson = (body: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body,
});

describe('restbus-mock --log-format json', () => {
  let api: string;
  beforeEach(async () => {
    api = await serve(sampleFiles(), '--log-level', 'debug', '--log-format', 'json', '--body-limit', '1024');
  });

  it('logs each client mistake as one line, info (a 404 debug), with its code, method, route and request id, never a stack', async () => {
    const malformed = await callAndRead(`${api}/users`, postJson('{"name": '));
    const tooLarge = await callAndRead(`${api}/users`, postJson(JSON.stringify({ name: 'x'.repeat(1024) })));
    const notAllowed = await callAndRead(`${api}/users`, { method: 'PATCH' });
    const notFound = await callAndRead(`${api}/nothing-here`);
    const seen = [malformed, tooLarge, notAllowed, notFound].map(({ response, lines }) => ({
      status: response.status,
      answeredId: response.headers.get('x-request-id'),
      lines: lines.map(({ level, code, method, route, path }) => ({ level, code, method, route, path })),
      stacks: lines.filter((line) => 'err' in line).length,
    }));
    expect(seen).toEqual([
      {
        status: 400,
        answeredId: 'quiet-1',
        lines: [{ level: INFO, code: 'REQUEST_INVALID', method: 'POST', route: '/rest/users', path: '/rest/users' }],
        stacks: 0,
      },
      {
        status: 413,
        answeredId: 'quiet-2',
        lines: [{ level: INFO, code: 'BODY_TOO_LARGE', method: 'POST', route: '/rest/users', path: '/rest/users' }],
        stacks: 0,
      },
      {
        status: 405,
        answeredId: 'quiet-3',
        lines: [{ level: INFO, code: 'METHOD_NOT_ALLOWED', method: 'PATCH', route: undefined, path: '/rest/users' }],
        stacks: 0,
      },
      {
        status: 404,
        answeredId: 'quiet-4',
        lines: [{ level: DEBUG, code: 'NOT_FOUND', method: 'GET', route: undefined, path: '/rest/nothing-here' }],
        stacks: 0,
      },
    ]);
  });

  it('logs an implementation that throws, its own failure, as one error line with the stack', async () => {
    const { response, text, lines } = await callAndRead(`${api}/broken/now`);
    expect(response.status).toBe(500);
    expect(lines).toEqual([
      expect.objectContaining({
        level: ERROR,
        code: 'HANDLER_FAILED',
        route: '/rest/broken/{how}',
        err: expect.objectContaining({ message: 'boom', stack: expect.stringContaining('Error: boom') }),
      }),
    ]);
    // The failure id the client got leads to the line.
    const id = /failure ([\w-]+) in the server log/.exec(text)?.[1];
    expect(String(lines[0].reason)).toContain(`failure ${id} in the server log`);
    expect(log().filter((line) => 'err' in line)).toHaveLength(1);
  });
});

describe('restbus-mock with a remote that is down', () => {
  it('logs its failure as one warning with its code, without a stack', async () => {
    const files = sampleFiles();
    const dead = await freePort();
    const config = `${String(files['server/config.yml'])}  down:
    remoteServices:
      - { uri: /down, host: 127.0.0.1, port: ${dead}, active: true }
`;
    const down = await serve({ ...files, 'server/config.yml': config }, 'down', '--log-format', 'json');
    const response = await fetch(`${down}/down/there`);
    expect(response.status).toBe(502);
    await response.arrayBuffer();
    const failures = () => log().filter((line) => line.code === 'PROXY_FAILED');
    for (let tries = 0; failures().length === 0 && tries < 100; tries++)
      await new Promise((done) => setTimeout(done, 20));
    expect(failures()).toEqual([expect.objectContaining({ level: WARN, method: 'GET', path: '/rest/down/there' })]);
    expect(log().filter((line) => 'err' in line)).toEqual([]);
  });
});
