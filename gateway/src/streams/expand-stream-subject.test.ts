import { isRestbusError, type RestbusError } from '@restbus/infra';
import { expandStreamSubject } from './expand-stream-subject';

function refusal(template: string, params: Record<string, string>): RestbusError {
  try {
    expandStreamSubject(template, params);
  } catch (err) {
    if (isRestbusError(err)) return err;
    throw err;
  }
  throw new Error(`expected ${template} with ${JSON.stringify(params)} to be refused`);
}

describe('expandStreamSubject', () => {
  it('fills each placeholder with its path parameter', () => {
    expect(expandStreamSubject('persons.{kind}.events.{id}', { id: '42', kind: 'staff' })).toBe(
      'persons.staff.events.42',
    );
  });

  it('leaves a subject without placeholders as written', () => {
    expect(expandStreamSubject('persons.events', {})).toBe('persons.events');
  });

  it('keeps unicode letters and dashes, which are valid in a NATS token', () => {
    expect(expandStreamSubject('p.{id}', { id: 'jürgen-1_x' })).toBe('p.jürgen-1_x');
  });

  it.each([
    ['empty', ''],
    ['a dot', 'a.b'],
    ['a star', '*'],
    ['a greater-than sign', '>'],
    ['a space', 'a b'],
    ['a tab', 'a\tb'],
    ['a line break', 'a\nb'],
    ['a control character', 'a\u0000b'],
    ['a delete character', 'a\u007fb'],
    ['longer than 256 bytes', 'x'.repeat(257)],
  ])('refuses a value that is %s with 400 REQUEST_INVALID naming the parameter', (_what, value) => {
    const error = refusal('persons.events.{id}', { id: value });
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.status).toBe(400);
    expect(error.details?.problems).toEqual([{ location: 'path.id', message: expect.any(String) }]);
    // The message never echoes a control character back.
    // eslint-disable-next-line no-control-regex
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it('refuses a placeholder without its parameter as REQUEST_INVALID', () => {
    expect(refusal('persons.events.{id}', {}).code).toBe('REQUEST_INVALID');
  });
});
