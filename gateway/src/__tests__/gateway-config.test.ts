import { DEFAULT_HTTP_LIMITS, loadConfig } from '@restbus/infra';
import { gatewayProgram, type GatewayConfig } from '../config';

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
