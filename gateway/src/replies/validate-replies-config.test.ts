import { loadConfig } from '@restbus/infra';
import { gatewayProgram, type GatewayConfig } from '../config';

const load = (argv: string[], env: Record<string, string> = {}): Readonly<GatewayConfig> =>
  loadConfig<GatewayConfig>(gatewayProgram, { argv: ['-r', 'api.yml', ...argv], env });

describe('the reply check settings of the gateway configuration', () => {
  it('check no reply unless asked, and every reply once asked', () => {
    expect(load([])).toMatchObject({ validateReplies: 'off', validateRepliesSample: 1 });
  });

  it.each([
    ['--validateReplies', ['--validateReplies', 'report'], {}, 'report'],
    ['--validate-replies', ['--validate-replies', 'enforce'], {}, 'enforce'],
    ['GATEWAY_VALIDATE_REPLIES', [], { GATEWAY_VALIDATE_REPLIES: 'report' }, 'report'],
  ])('read the mode from %s', (_how, argv, env, mode) => {
    expect(load(argv, env)).toMatchObject({ validateReplies: mode });
  });

  it('read the sampled fraction from --validateRepliesSample, --validate-replies-sample and its variable', () => {
    expect(load(['--validateRepliesSample', '0.25'])).toMatchObject({ validateRepliesSample: 0.25 });
    expect(load(['--validate-replies-sample', '0'])).toMatchObject({ validateRepliesSample: 0 });
    expect(load([], { GATEWAY_VALIDATE_REPLIES_SAMPLE: '0.5' })).toMatchObject({ validateRepliesSample: 0.5 });
  });

  it.each([
    [
      'a mode that is not off, report or enforce',
      ['--validateReplies', 'strict'],
      /--validateReplies \/ GATEWAY_VALIDATE_REPLIES: must be one of off\|report\|enforce/,
    ],
    [
      'a fraction above 1',
      ['--validateRepliesSample', '1.5'],
      /--validateRepliesSample \/ GATEWAY_VALIDATE_REPLIES_SAMPLE/,
    ],
    [
      'a negative fraction',
      ['--validateRepliesSample', '-0.1'],
      /--validateRepliesSample \/ GATEWAY_VALIDATE_REPLIES_SAMPLE/,
    ],
    [
      'a fraction that is not a number',
      ['--validateRepliesSample', 'half'],
      /--validateRepliesSample \/ GATEWAY_VALIDATE_REPLIES_SAMPLE/,
    ],
  ])('refuse %s, naming the flag and the variable', (_what, argv, message) => {
    expect(() => load(argv)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => load(argv)).toThrow(message);
  });
});
