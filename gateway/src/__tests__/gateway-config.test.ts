import { DEFAULT_HTTP_LIMITS, loadConfig } from '@restbus/infra';
import { findInvalidSettings } from '@restbus/infra/testing';
import { gatewayProgram, type GatewayConfig } from '../config';
import { readSubjectList } from '../socket-io-bridge/subject-list';

const load = (argv: string[], env: Record<string, string> = {}): Readonly<GatewayConfig> =>
  loadConfig<GatewayConfig>(gatewayProgram, { argv: ['-r', 'api.yml', ...argv], env });

describe('the HTTP limits of the gateway configuration', () => {
  it("default to infra's HTTP limits", () => {
    expect(load([])).toMatchObject({
      headersTimeout: DEFAULT_HTTP_LIMITS.headersTimeoutMs,
      requestTimeout: DEFAULT_HTTP_LIMITS.requestTimeoutMs,
      maxConnections: DEFAULT_HTTP_LIMITS.maxConnections,
    });
  });

  it('are read from the flags', () => {
    expect(load(['--headersTimeout', '500', '--requestTimeout', '2000', '--maxConnections', '64'])).toMatchObject({
      headersTimeout: 500,
      requestTimeout: 2000,
      maxConnections: 64,
    });
  });

  it('are read from the environment, and the flags win', () => {
    const env = {
      GATEWAY_HEADERS_TIMEOUT_MS: '700',
      GATEWAY_REQUEST_TIMEOUT_MS: '3000',
      GATEWAY_MAX_CONNECTIONS: '10',
    };
    expect(load([], env)).toMatchObject({ headersTimeout: 700, requestTimeout: 3000, maxConnections: 10 });
    expect(load(['--maxConnections', '20'], env)).toMatchObject({ maxConnections: 20 });
  });

  it.each([
    ['a zero request timeout, which Node takes for none', ['--requestTimeout', '0'], '--request-timeout'],
    ['a headers timeout that is not a number', ['--headers-timeout', 'soon'], '--headers-timeout'],
    ['no connections at all', ['--maxConnections', '0'], '--max-connections'],
  ])('refuse %s, naming the flag and the variable', (_what, argv, flag) => {
    expect(() => load(argv)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => load(argv)).toThrow(new RegExp(`${flag} / GATEWAY_`));
  });
});

describe('the hybrid mode settings of the gateway configuration', () => {
  it('mock no writes unless asked', () => {
    expect(load(['-u', '-m'])).toMatchObject({ useMessaging: true, enableMocking: true, mockWrites: false });
  });

  it.each([
    ['--mockWrites', ['--mockWrites'], {}],
    ['--mock-writes', ['--mock-writes'], {}],
    ['GATEWAY_MOCK_WRITES=true', [], { GATEWAY_MOCK_WRITES: 'true' }],
  ])('mock writes too when asked with %s', (_how, argv, env) => {
    expect(load(['-u', '-m', ...argv], env)).toMatchObject({ mockWrites: true });
  });

  it('refuse a GATEWAY_MOCK_WRITES that is not a boolean, naming the variable', () => {
    expect(() => load([], { GATEWAY_MOCK_WRITES: 'sometimes' })).toThrow(/GATEWAY_MOCK_WRITES/);
  });
});

describe("the WebSocket settings of the gateway configuration (easer's -w, -i, -o)", () => {
  it('leave the WebSocket gateway off, with no subjects, unless asked', () => {
    const config = load([]);
    expect(config.useWebsocket).toBe(false);
    expect(readSubjectList(config.inbound)).toEqual([]);
    expect(readSubjectList(config.outbound)).toEqual([]);
  });

  it('read -w, -i and -o as easer does: comma-separated, trimmed, empty items dropped', () => {
    const config = load(['-w', '-i', ' sensors.> , alerts.*.high,,orders ', '-o', 'commands.lamp,']);
    expect(config.useWebsocket).toBe(true);
    expect(readSubjectList(config.inbound)).toEqual(['sensors.>', 'alerts.*.high', 'orders']);
    expect(readSubjectList(config.outbound)).toEqual(['commands.lamp']);
  });

  it('read the long flags --useWebsocket, --inbound and --outbound', () => {
    const config = load(['--useWebsocket', '--inbound', 'a.b', '--outbound', 'c.d']);
    expect(config).toMatchObject({ useWebsocket: true, inbound: 'a.b', outbound: 'c.d' });
  });

  it("read easer's environment variables EASER_USE_WEBSOCKET, WSGW_INBOUND_TOPICS and WSGW_OUTBOUND_TOPICS", () => {
    const env = { EASER_USE_WEBSOCKET: 'true', WSGW_INBOUND_TOPICS: 'IN,  news.>', WSGW_OUTBOUND_TOPICS: 'OUT' };
    const config = load([], env);
    expect(config.useWebsocket).toBe(true);
    expect(readSubjectList(config.inbound)).toEqual(['IN', 'news.>']);
    expect(readSubjectList(config.outbound)).toEqual(['OUT']);
    expect(load([], { EASER_USE_WEBSOCKET: 'false' }).useWebsocket).toBe(false);
  });

  it('let the flags win over the environment', () => {
    expect(load(['-i', 'from.flag'], { WSGW_INBOUND_TOPICS: 'from.env' }).inbound).toBe('from.flag');
  });

  it('refuse an EASER_USE_WEBSOCKET that is not a boolean, naming the variable, as every boolean variable', () => {
    expect(() => load([], { EASER_USE_WEBSOCKET: 'yes' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => load([], { EASER_USE_WEBSOCKET: 'yes' })).toThrow(/--useWebsocket \/ EASER_USE_WEBSOCKET/);
  });

  it.each([
    [
      'whitespace inside a subject',
      ['-i', 'a b'],
      /--inbound \/ WSGW_INBOUND_TOPICS: "a b" is not a NATS subject: it contains whitespace/,
    ],
    ['an empty token', ['-i', 'ok,a..b'], /--inbound \/ WSGW_INBOUND_TOPICS: "a\.\.b" .*empty token/],
    ['">" before the last token', ['-i', 'a.>.b'], /--inbound .*"a\.>\.b" .*before its last token/],
    ['a wildcard inside a token', ['-i', 'a.b*'], /--inbound .*"a\.b\*" .*whole tokens/],
    [
      'a wildcard in an outbound subject',
      ['-o', 'lamps.*'],
      /--outbound \/ WSGW_OUTBOUND_TOPICS: "lamps\.\*" .*wildcard/,
    ],
    ['a control character', ['-o', 'a\nb'], /--outbound .*"a\\\\nb" .*control character/],
  ])('refuse %s, naming the option', (_what, argv, message) => {
    expect(() => load(argv)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => load(argv)).toThrow(message);
  });

  it.each([
    ['-i', 'news,disconnect'],
    ['-o', 'connect'],
    ['-o', 'removeListener'],
  ])('refuse %s %s: socket.io reserves the event name, so no message could go by it', (flag, subjects) => {
    expect(() => load([flag, subjects])).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => load([flag, subjects])).toThrow(/is an event name socket\.io reserves/);
  });

  it('refuse a subject from the environment, naming the variable', () => {
    expect(() => load([], { WSGW_OUTBOUND_TOPICS: 'x.>' })).toThrow(/WSGW_OUTBOUND_TOPICS: "x\.>"/);
  });
});

describe('the event stream settings of the gateway configuration', () => {
  it('default to 1,000 events and 1 MiB queued per client, gap past them, 10,000 streams, a beat every 15 s, a mock event a second', () => {
    expect(load([])).toMatchObject({
      streamMaxEvents: 1000,
      streamMaxBytes: 1024 * 1024,
      streamOverflow: 'gap',
      streamMaxOpen: 10_000,
      streamHeartbeat: 15,
      mockEventInterval: 1000,
    });
  });

  it('are read from the flags and from the environment, and the flags win', () => {
    const argv = ['--streamMaxEvents', '10', '--streamMaxBytes', '4096', '--streamOverflow', 'close'];
    expect(
      load([...argv, '--streamMaxOpen', '5', '--streamHeartbeat', '2', '--mockEventInterval', '50']),
    ).toMatchObject({
      streamMaxEvents: 10,
      streamMaxBytes: 4096,
      streamOverflow: 'close',
      streamMaxOpen: 5,
      streamHeartbeat: 2,
      mockEventInterval: 50,
    });
    const env = {
      GATEWAY_STREAM_MAX_EVENTS: '20',
      GATEWAY_STREAM_MAX_BYTES: '2048',
      GATEWAY_STREAM_OVERFLOW: 'close',
      GATEWAY_STREAM_MAX_OPEN: '7',
      GATEWAY_STREAM_HEARTBEAT_S: '3',
      GATEWAY_MOCK_EVENT_INTERVAL_MS: '250',
    };
    expect(load([], env)).toMatchObject({
      streamMaxEvents: 20,
      streamMaxBytes: 2048,
      streamOverflow: 'close',
      streamMaxOpen: 7,
      streamHeartbeat: 3,
      mockEventInterval: 250,
    });
    expect(load(['--streamMaxOpen', '9'], env)).toMatchObject({ streamMaxOpen: 9 });
  });

  it.each([
    ['no events queued', ['--streamMaxEvents', '0'], '--streamMaxEvents'],
    ['fewer bytes than one event takes', ['--streamMaxBytes', '10'], '--streamMaxBytes'],
    ['an overflow policy that is neither gap nor close', ['--streamOverflow', 'drop'], '--streamOverflow'],
    ['no streams at all', ['--streamMaxOpen', '0'], '--streamMaxOpen'],
    ['a heartbeat that is not a number', ['--streamHeartbeat', 'often'], '--streamHeartbeat'],
    ['a zero heartbeat', ['--streamHeartbeat', '0'], '--streamHeartbeat'],
    ['a zero mock interval', ['--mockEventInterval', '0'], '--mockEventInterval'],
  ])('refuse %s, naming the option', (_what, argv, flag) => {
    expect(() => load(argv)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => load(argv)).toThrow(new RegExp(flag));
  });
});

describe("the gateway's settings schema", () => {
  it('is a valid JSON schema (loadConfig compiles it unchecked)', () => {
    expect(findInvalidSettings(gatewayProgram)).toEqual([]);
  });
});
