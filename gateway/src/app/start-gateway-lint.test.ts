import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Diagnostic, SourceFile } from '@restbus/openapi';
import { freePort, waitFor } from '@restbus/infra/testing';
import type { GatewayConfig } from '../config';
import type { ApiLinter } from '../openapi/create-api-linter';
import { startGateway, type RunningGateway } from './start-gateway';

/** A pet store whose one example breaks its own schema: -m answers with it, and warns of it. */
const API = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'pets', version: '1' },
  paths: {
    '/pets': {
      get: {
        responses: {
          '200': {
            description: 'pets',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { name: { type: 'string' } } },
                example: { name: 42 },
              },
            },
          },
        },
      },
    },
  },
});

interface LogEntry {
  msg: string;
  level: number;
  diagnostic?: Diagnostic;
  warnings?: number;
}

/** A logger that keeps every entry, in order. */
function collectingLogger() {
  const entries: LogEntry[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => entries.push(JSON.parse(line) as LogEntry) });
  return { logger, entries };
}

/** A linter that answers only when the test says so: `finish` resolves every lint asked for so far and later. */
function controllableLinter() {
  const asked: SourceFile[] = [];
  let finish!: (diagnostics: Diagnostic[]) => void;
  const result = new Promise<Diagnostic[]>((resolve) => (finish = resolve));
  const state = { closed: false };
  const linter: ApiLinter = {
    lint(source) {
      asked.push(source);
      return result;
    },
    close() {
      state.closed = true;
      finish([]);
    },
  };
  return { linter, asked, finish, state };
}

const lintWarning = (file: string): Diagnostic => ({
  severity: 'warning',
  file,
  line: 2,
  column: 3,
  path: 'info',
  message: 'a warning only the lint finds',
});

let dir: string;
let file: string;
let running: RunningGateway | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-start-lint-'));
  file = join(dir, 'pets.json');
  await writeFile(file, API);
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const config = (overrides: Partial<GatewayConfig>): GatewayConfig => ({
  restApiPath: [file],
  port: 0,
  natsUri: 'nats://127.0.0.1:4222',
  topicPrefix: 'easer',
  inboxPrefix: '_INBOX',
  useMessaging: false,
  timeout: 2000,
  basePath: '/',
  bodyLimit: 65536,
  logLevel: 'info',
  validate: false,
  ...overrides,
});

const indexOf = (entries: LogEntry[], found: (entry: LogEntry) => boolean): number => entries.findIndex(found);

describe('a gateway whose lint is still running', () => {
  it('answers calls before the lint ends, and logs its warnings after it ends', async () => {
    const lint = controllableLinter();
    const { logger, entries } = collectingLogger();
    running = await startGateway(config({}), logger, { linter: lint.linter });
    expect(lint.asked.map(({ file: linted }) => linted)).toEqual([file]);
    // Without -u a described operation answers 501: routed and answered while the lint has not ended.
    expect((await fetch(`http://127.0.0.1:${running.port}/pets`)).status).toBe(501);
    expect(entries.map(({ msg }) => msg)).toContain('gateway listening');
    expect(entries.filter(({ diagnostic }) => diagnostic)).toEqual([]);

    lint.finish([lintWarning(file)]);
    await waitFor(() => entries.some(({ msg }) => msg === 'API checked for warnings'), {
      what: 'the lint warnings logged',
    });
    const listening = indexOf(entries, ({ msg }) => msg === 'gateway listening');
    const warning = indexOf(entries, ({ diagnostic }) => diagnostic?.message === 'a warning only the lint finds');
    const checked = indexOf(entries, ({ msg }) => msg === 'API checked for warnings');
    expect(listening).toBeLessThan(warning);
    expect(warning).toBeLessThan(checked);
    expect(entries[warning]).toMatchObject({
      level: 40,
      msg: `${file}:2:3  warning  info: a warning only the lint finds`,
    });
    expect(entries[checked].warnings).toBe(1);
  });

  it('with -m, answers from the examples before the lint ends, and warns of an example its schema refuses after', async () => {
    const lint = controllableLinter();
    const { logger, entries } = collectingLogger();
    running = await startGateway(config({ enableMocking: true }), logger, { linter: lint.linter });
    const response = await fetch(`http://127.0.0.1:${running.port}/pets`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 42 });
    expect(entries.filter(({ diagnostic }) => diagnostic)).toEqual([]);

    lint.finish([]);
    await waitFor(() => entries.some(({ msg }) => msg === 'API checked for warnings'), {
      what: 'the warnings logged',
    });
    const warnings = entries.filter(({ diagnostic }) => diagnostic);
    expect(warnings.map(({ diagnostic }) => diagnostic?.path)).toEqual([
      'paths./pets.get.responses.200.content.application/json.example',
    ]);
    expect(warnings[0].msg).toContain('the example does not match its schema, and -m answers with it');
  });

  it("with -m, does not repeat an example's warning the lint already gave", async () => {
    const lint = controllableLinter();
    const { logger, entries } = collectingLogger();
    running = await startGateway(config({ enableMocking: true }), logger, { linter: lint.linter });
    const path = 'paths./pets.get.responses.200.content.application/json.example';
    lint.finish([{ severity: 'warning', file, path, message: 'the lint says it first' }]);
    await waitFor(() => entries.some(({ msg }) => msg === 'API checked for warnings'), {
      what: 'the warnings logged',
    });
    expect(entries.filter(({ diagnostic }) => diagnostic).map(({ diagnostic }) => diagnostic?.message)).toEqual([
      'the lint says it first',
    ]);
  });

  it('ends the lint when stopped, and says none of its warnings', async () => {
    const lint = controllableLinter();
    const { logger, entries } = collectingLogger();
    running = await startGateway(config({}), logger, { linter: lint.linter });
    await running.stop();
    running = undefined;
    expect(lint.state.closed).toBe(true);
    expect(entries.map(({ msg }) => msg)).not.toContain('API checked for warnings');
    expect(entries.filter(({ diagnostic }) => diagnostic)).toEqual([]);
  });
});

describe('a gateway with --strict', () => {
  it('does not listen before the lint ends, then refuses to start on its warning', async () => {
    const lint = controllableLinter();
    const { logger } = collectingLogger();
    const port = await freePort();
    let settled = false;
    const starting = startGateway(config({ strict: true, port }), logger, { linter: lint.linter });
    const outcome = starting.then(
      () => undefined,
      (err: unknown) => err,
    );
    void outcome.finally(() => (settled = true));
    await waitFor(() => lint.asked.length === 1, { what: 'the lint asked for' });
    // The lint has not ended: nothing listens on the port yet, and the start has not ended either.
    await expect(fetch(`http://127.0.0.1:${port}/pets`)).rejects.toThrow();
    expect(settled).toBe(false);

    lint.finish([lintWarning(file)]);
    const err = await outcome;
    expect(err).toMatchObject({ code: 'OPENAPI_INVALID' });
    expect((err as Error).message).toBe(`${file}:2:3  error  info: a warning only the lint finds`);
    await expect(fetch(`http://127.0.0.1:${port}/pets`)).rejects.toThrow();
  });

  it('starts once the lint ends without warnings', async () => {
    const lint = controllableLinter();
    const { logger } = collectingLogger();
    const port = await freePort();
    const starting = startGateway(config({ strict: true, port }), logger, { linter: lint.linter });
    await waitFor(() => lint.asked.length === 1, { what: 'the lint asked for' });
    await expect(fetch(`http://127.0.0.1:${port}/pets`)).rejects.toThrow();
    lint.finish([]);
    running = await starting;
    expect((await fetch(`http://127.0.0.1:${port}/pets`)).status).toBe(501);
  });
});
