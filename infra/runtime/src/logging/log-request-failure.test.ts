import { Writable } from 'node:stream';
import { RestbusError } from '../errors/restbus-error';
import { refuseRequest } from '../errors/request-mistakes';
import { createLogger } from './create-logger';
import { describeFailureLine, logRequestFailure } from './log-request-failure';

const levelOf = (err: unknown) => describeFailureLine(err).level;
const hasStack = (err: unknown) => 'err' in describeFailureLine(err).fields;

describe('describeFailureLine', () => {
  it.each([
    ['malformed JSON', refuseRequest('malformedJson')],
    ['a body too large', refuseRequest('bodyTooLarge')],
    ['a method not allowed', refuseRequest('methodNotAllowed')],
    ['missing credentials', refuseRequest('credentialsMissing')],
    ['an Accept nothing meets', new RestbusError('NOT_ACCEPTABLE', 'no')],
  ])('says a client’s mistake (%s) at info, without a stack', (_what, err) => {
    expect([levelOf(err), hasStack(err)]).toEqual(['info', false]);
  });

  it('says a path nothing is served at at debug: scanners and browsers ask for many', () => {
    expect([levelOf(refuseRequest('notFound')), hasStack(refuseRequest('notFound'))]).toEqual(['debug', false]);
  });

  it.each([
    'NO_RESPONDER',
    'NATS_UNAVAILABLE',
    'UPSTREAM_TIMEOUT',
    'STORE_UNAVAILABLE',
    'BAD_REPLY',
    'PROXY_FAILED',
  ] as const)('says an expected outage (%s) as a warning, without a stack even when it has a cause', (code) => {
    const err = new RestbusError(code, 'away', { cause: new Error('socket closed') });
    expect(describeFailureLine(err)).toEqual({
      level: 'warn',
      message: 'request failed',
      fields: { code, status: err.status, reason: 'away' },
    });
  });

  it('says the program’s own failures at error with the stack: an unexpected error, INTERNAL’s cause, a failed handler', () => {
    const bug = new TypeError('x is undefined');
    expect(describeFailureLine(bug)).toMatchObject({ level: 'error', fields: { code: 'INTERNAL', err: bug } });
    const wrapped = new RestbusError('INTERNAL', 'the request could not be forwarded', { cause: bug });
    expect(describeFailureLine(wrapped)).toMatchObject({ level: 'error', fields: { err: bug } });
    const handler = new RestbusError('HANDLER_FAILED', 'the implementation failed', { cause: bug });
    expect(describeFailureLine(handler)).toMatchObject({ level: 'error', fields: { err: bug } });
  });
});

describe('logRequestFailure', () => {
  it('writes one line: the code, status and reason, then what the caller says of the request', () => {
    let text = '';
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    const logger = createLogger({ name: 'demo', format: 'json', destination });
    logRequestFailure(logger, refuseRequest('malformedJson'), { method: 'POST', route: '/pets', reqId: 'r1' });
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request refused',
        code: 'REQUEST_INVALID',
        status: 400,
        reason: 'the body is not valid JSON',
        method: 'POST',
        route: '/pets',
        reqId: 'r1',
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('err');
  });
});
