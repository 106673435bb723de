import { isRestbusError, type RestbusError } from '@restbus/infra';
import { expandStreamSubject } from './expand-stream-subject';
import { MAX_STREAM_SUBJECT_BYTES } from '@restbus/openapi';

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

describe('expandStreamSubject and the length of the whole subject', () => {
  const names = Array.from({ length: 17 }, (_, i) => `p${i}`);
  const template = `wide.${names.map((name) => `{${name}}`).join('.')}`;
  const params = (bytes: (name: string) => number) =>
    Object.fromEntries(names.map((name) => [name, 'x'.repeat(bytes(name))]));

  it('fills many placeholders while the subject stays within MAX_STREAM_SUBJECT_BYTES', () => {
    const subject = expandStreamSubject(
      template,
      params(() => 128),
    );
    expect(Buffer.byteLength(subject)).toBeLessThanOrEqual(MAX_STREAM_SUBJECT_BYTES);
  });

  it('refuses values each one token but together past MAX_STREAM_SUBJECT_BYTES with 400 REQUEST_INVALID naming the longest', () => {
    const error = refusal(
      template,
      params((name) => (name === 'p3' ? 256 : 250)),
    );
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^path parameter "p3" makes the stream's subject \d+ bytes/);
    expect(error.message).toContain(String(MAX_STREAM_SUBJECT_BYTES));
    expect(error.details).toEqual({ problems: [{ location: 'path.p3', message: error.message }] });
  });
});
