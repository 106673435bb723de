import { loadConfig, type ProgramSpec } from '../config/load-config';
import { storeSetting } from './open-store';

const program: ProgramSpec = { name: 'demo', version: '0', description: 'demo', settings: [storeSetting] };

describe('the --store setting', () => {
  it('lists jetstream and memory in its help', () => {
    let help = '';
    const output = { writeOut: (text: string) => (help += text), writeErr: () => undefined };
    expect(() => loadConfig(program, { argv: ['--help'], env: {}, output })).toThrow();
    expect(help.replace(/\s+/g, ' ')).toContain('(one of jetstream|memory, env STORE, default "jetstream")');
  });

  it('names the allowed values when given another', () => {
    expect(() => loadConfig(program, { argv: ['--store', 'disk'], env: {} })).toThrow(
      'invalid configuration: --store / STORE: must be one of jetstream|memory (got "disk")',
    );
  });
});
