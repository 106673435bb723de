import { readRateLimits } from './rate-limit-extension';

describe('readRateLimits', () => {
  it('reads one limit, its window in seconds and milliseconds, by address unless it says otherwise', () => {
    expect(readRateLimits({ limit: 100, window: '1m' })).toEqual([
      { name: 'limit', limit: 100, windowMs: 60_000, windowSeconds: 60, by: { kind: 'address' } },
    ]);
  });

  it('reads a list of limits, naming the unnamed ones after their place, each by its own client', () => {
    const limits = readRateLimits([
      { name: 'burst', limit: 10, window: '1s', by: 'subject' },
      { limit: 1000, window: '1d', by: 'header:X-Client-Id' },
      { limit: 5, window: '2h', by: 'anyone' },
    ]);
    expect(limits).toEqual([
      { name: 'burst', limit: 10, windowMs: 1000, windowSeconds: 1, by: { kind: 'subject' } },
      {
        name: 'limit-2',
        limit: 1000,
        windowMs: 86_400_000,
        windowSeconds: 86_400,
        by: { kind: 'header', name: 'x-client-id' },
      },
      { name: 'limit-3', limit: 5, windowMs: 7_200_000, windowSeconds: 7200, by: { kind: 'anyone' } },
    ]);
  });

  it("reads an empty list as no limit (how an operation lifts its document's)", () => {
    expect(readRateLimits([])).toEqual([]);
  });

  it.each([
    [{ limit: 0, window: '1m' }, 'x-restbus-rate-limit.limit must be >= 1'],
    [{ limit: 1.5, window: '1m' }, 'x-restbus-rate-limit.limit must be integer'],
    [{ limit: 10 }, "x-restbus-rate-limit must have required property 'window'"],
    [{ limit: 10, window: '1 minute' }, 'x-restbus-rate-limit.window must be a whole number and a unit, s, m, h or d'],
    [{ limit: 10, window: '0s' }, 'x-restbus-rate-limit.window must be a whole number and a unit'],
    [{ limit: 10, window: '32d' }, 'x-restbus-rate-limit window 32d is longer than 31 days'],
    [
      { limit: 10, window: '1m', by: 'cookie:sid' },
      'x-restbus-rate-limit.by must be subject, address, anyone or header:<name>',
    ],
    [{ limit: 10, window: '1m', by: 'header:bad name' }, 'x-restbus-rate-limit.by must be subject'],
    [{ name: 'a b', limit: 10, window: '1m' }, 'x-restbus-rate-limit.name must be 1 to 64 letters'],
    [{ limit: 10, window: '1m', burst: 5 }, 'x-restbus-rate-limit must NOT have additional properties'],
    [
      [
        { limit: 10, window: '1m' },
        { limit: 'ten', window: '1m' },
      ],
      'x-restbus-rate-limit.1.limit must be integer',
    ],
    [
      [
        { name: 'a', limit: 1, window: '1s' },
        { name: 'a', limit: 2, window: '1m' },
      ],
      'x-restbus-rate-limit names two limits "a"',
    ],
    [
      Array.from({ length: 9 }, () => ({ limit: 1, window: '1s' })),
      'x-restbus-rate-limit must NOT have more than 8 items',
    ],
    ['100/minute', 'x-restbus-rate-limit must be a limit ({limit, window, by}) or a list of them'],
    [null, 'x-restbus-rate-limit must be a limit ({limit, window, by}) or a list of them'],
  ])('refuses %j, saying which member is wrong', (value, message) => {
    const read = readRateLimits(value);
    expect(typeof read).toBe('string');
    expect(read).toContain(message);
  });
});
