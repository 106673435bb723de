import { waitFor } from './wait-for';

describe('waitFor', () => {
  it('resolves once the check holds, asking again until it does', async () => {
    let asked = 0;
    await waitFor(() => ++asked === 3, { what: 'the third ask', everyMs: 1 });
    expect(asked).toBe(3);
  });

  it('rejects naming what did not happen once its deadline timer fires', async () => {
    await expect(waitFor(() => false, { what: 'the move', timeoutMs: 30, everyMs: 5 })).rejects.toThrow(
      'the move did not happen within 30 ms',
    );
  });

  it('takes a check that throws or rejects as not yet', async () => {
    let asked = 0;
    await waitFor(
      async () => {
        asked += 1;
        if (asked < 3) throw new Error('not up yet');
        return true;
      },
      { what: 'the server', everyMs: 1 },
    );
    expect(asked).toBe(3);
  });
});
