import { Writable } from 'node:stream';
import { createLogger, type LoggerOptions } from './create-logger';

/** A logger whose output the test reads, as text. */
function capture(options: Omit<LoggerOptions, 'name' | 'destination'>) {
  let text = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const logger = createLogger({ name: 'demo', ...options, destination });
  return { logger, output: () => text };
}

// eslint-disable-next-line no-control-regex -- the colour escapes are what is looked for
const COLOUR = /\u001b\[\d+m/;

describe('createLogger', () => {
  it('writes a JSON object per line when the destination is not a terminal and no format is asked for', () => {
    const { logger, output } = capture({});
    logger.child({ component: 'nats' }).info({ server: 'localhost:4222' }, 'connected to NATS');
    expect(JSON.parse(output())).toMatchObject({
      level: 30,
      name: 'demo',
      component: 'nats',
      server: 'localhost:4222',
      msg: 'connected to NATS',
    });
  });

  it('writes a line a person reads on a terminal: time, level name, component, message, then the fields', () => {
    const { logger, output } = capture({ terminal: true });
    logger.child({ component: 'nats' }).warn({ reason: 'CONNECTION_REFUSED' }, 'NATS is not reachable');
    const line = output().replace(new RegExp(COLOUR.source, 'g'), '');
    expect(line).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: nats: NATS is not reachable \{"reason":"CONNECTION_REFUSED"\}\n$/,
    );
  });

  it('colours pretty lines on a terminal only', () => {
    const onTerminal = capture({ terminal: true });
    const inFile = capture({ format: 'pretty' });
    onTerminal.logger.info('started');
    inFile.logger.info('started');
    expect(onTerminal.output()).toMatch(COLOUR);
    expect(inFile.output()).not.toMatch(COLOUR);
    expect(inFile.output()).toMatch(/^\[[\d:.]+\] INFO: demo: started\n$/);
  });

  it('names the program where a line has no component', () => {
    const { logger, output } = capture({ format: 'pretty' });
    logger.info({ port: 3007 }, 'gateway listening');
    expect(output()).toMatch(/INFO: demo: gateway listening \{"port":3007\}\n$/);
  });

  it('writes JSON on a terminal when the json format is asked for', () => {
    const { logger, output } = capture({ format: 'json', terminal: true });
    logger.info('started');
    expect(JSON.parse(output())).toMatchObject({ msg: 'started' });
  });

  it('writes pretty lines only at or above its level, with an error under err', () => {
    const { logger, output } = capture({ format: 'pretty', level: 'warn' });
    logger.info('quiet');
    logger.error({ err: new Error('boom') }, 'failed');
    expect(output()).not.toContain('quiet');
    expect(output()).toMatch(/ERROR: demo: failed *\n\s+err: \{[\s\S]*"message": "boom"[\s\S]*Error: boom/);
  });
});
