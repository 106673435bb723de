import { logFormatSetting, logLevelSetting, natsUriSetting, topicPrefixSetting } from './common-settings';
import { loadConfig } from './load-config';

const load = (topicPrefix: string) =>
  loadConfig<{ topicPrefix: string }>(
    { name: 'demo', version: '0', description: 'demo', settings: [topicPrefixSetting] },
    { argv: ['--topicPrefix', topicPrefix], env: {} },
  );

describe('the topic prefix setting', () => {
  it.each(['easer', 'person-demo', 'org.team'])('accepts "%s"', (prefix) => {
    expect(load(prefix).topicPrefix).toBe(prefix);
  });

  it.each(['*', 'a.>', 'two words', 'a..b', '.a'])(
    'refuses "%s", which would not be a safe subject prefix',
    (prefix) => {
      expect(() => load(prefix)).toThrow(/--topicPrefix \/ TOPIC_PREFIX: must match pattern/);
    },
  );
});

describe('the log settings', () => {
  const loadLog = (argv: string[], env: Record<string, string> = {}) =>
    loadConfig<{ logLevel: string; logFormat?: string }>(
      { name: 'demo', version: '0', description: 'demo', settings: [logLevelSetting, logFormatSetting] },
      { argv, env, output: { writeOut: (text) => (help += text), writeErr: () => undefined } },
    );
  let help = '';
  beforeEach(() => (help = ''));

  it("spell the log level --log-level in help, and still take -l and easer's --logLevel", () => {
    expect(() => loadLog(['--help'])).toThrow();
    expect(help).toContain('-l, --log-level <level>');
    expect(help).not.toContain('--logLevel');
    expect(loadLog(['--log-level', 'debug']).logLevel).toBe('debug');
    expect(loadLog(['-l', 'warn']).logLevel).toBe('warn');
    expect(loadLog(['--logLevel', 'error']).logLevel).toBe('error');
    expect(loadLog([], { LOG_LEVEL: 'trace' }).logLevel).toBe('trace');
  });

  it('take pretty or json from --log-format or LOG_FORMAT, and leave the choice to main.ts when neither says', () => {
    expect(loadLog(['--log-format', 'pretty']).logFormat).toBe('pretty');
    expect(loadLog([], { LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadLog([]).logFormat).toBeUndefined();
    expect(() => loadLog(['--log-format', 'plainText'])).toThrow(
      '--log-format / LOG_FORMAT: must be one of pretty|json (got "plainText")',
    );
    expect(() => loadLog(['--help'])).toThrow();
    expect(help).toMatch(/--log-format <format>[\s\S]*default pretty on a\s+terminal and json otherwise/);
  });
});

describe('the NATS settings', () => {
  it("take the kebab-case spellings --nats-uri and --topic-prefix beside easer's", () => {
    const config = loadConfig<{ natsUri: string; topicPrefix: string }>(
      { name: 'demo', version: '0', description: 'demo', settings: [natsUriSetting, topicPrefixSetting] },
      { argv: ['--nats-uri', 'nats://bus:4222', '--topic-prefix', 'crm'], env: {} },
    );
    expect(config).toEqual({ natsUri: 'nats://bus:4222', topicPrefix: 'crm' });
  });
});

describe('the NATS URL setting', () => {
  const loadNats = (natsUri: string) =>
    loadConfig<{ natsUri: string }>(
      { name: 'demo', version: '0', description: 'demo', settings: [natsUriSetting] },
      { argv: ['--natsUri', natsUri], env: {} },
    );

  it.each(['nats://localhost:4222', 'localhost:4222', 'nats://a:4222,nats://b:4222', 'tls://[::1]:4222', 'wss://h'])(
    'accepts "%s"',
    (uri) => {
      expect(loadNats(uri).natsUri).toBe(uri);
    },
  );

  it.each([
    ['nats://[::1', /"nats:\/\/\[::1" is not a URL/],
    ['garbage://x', /scheme garbage; NATS takes nats, tls, ws or wss/],
    ['nats://a:4222,', /an empty URL in the list/],
    ['http://localhost:4222', /scheme http/],
  ])('refuses "%s" at start, naming the flag and the variable, instead of retrying it forever', (uri, problem) => {
    let error: unknown;
    try {
      loadNats(uri);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringMatching(problem) });
    expect((error as Error).message).toContain('--natsUri / NATS_URL');
  });
});
