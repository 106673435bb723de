import { isRestbusError } from '../../errors/restbus-error';
import { readResumePoint } from './read-resume-point';

describe('readResumePoint', () => {
  it('reads Last-Event-ID, then ?since=, and nothing when neither is given', () => {
    expect(readResumePoint({ 'last-event-id': '42' }, '')).toBe(42);
    expect(readResumePoint({}, 'a=1&since=7')).toBe(7);
    expect(readResumePoint({ 'last-event-id': '3' }, 'since=7')).toBe(3);
    expect(readResumePoint({}, '')).toBeUndefined();
    expect(readResumePoint({ 'last-event-id': '' }, '')).toBeUndefined();
  });

  it.each(['abc', '-1', '1.5', '1e3', '99999999999999999999'])('refuses %j as 400 REQUEST_INVALID', (value) => {
    for (const attempt of [
      () => readResumePoint({ 'last-event-id': value }, ''),
      () => readResumePoint({}, `since=${value}`),
    ]) {
      try {
        attempt();
        throw new Error('accepted');
      } catch (err) {
        expect(isRestbusError(err) && err.code).toBe('REQUEST_INVALID');
      }
    }
  });
});
