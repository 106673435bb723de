import { createStateBudget } from './create-state-budget';

describe('createStateBudget', () => {
  it('pushes out the sessions used longest ago when a session needs room, never the one asking', () => {
    const budget = createStateBudget<string>({ maxBytes: 300 });
    const first = budget.sessionStates('first');
    first.states.set('/notes', 'first state');
    first.account.charge(100);
    budget.sessionStates('second').account.charge(100);
    // The first session is used again: now the second is the one used longest ago.
    budget.sessionStates('first');
    budget.sessionStates('third').account.charge(150);
    expect(budget.usedBytes).toBe(250);
    expect(budget.sessionStates('first').states.get('/notes')).toBe('first state');
    expect(budget.sessionStates('second').states.size).toBe(0);
  });

  it('refuses with STATE_FULL what the asking session alone cannot fit, and never pushes out shared state', () => {
    const budget = createStateBudget<string>({ maxBytes: 300 });
    budget.shared.charge(200);
    const session = budget.sessionStates('s');
    session.account.charge(50);
    expect(() => session.account.charge(100)).toThrow(
      expect.objectContaining({ code: 'STATE_FULL', message: expect.stringContaining('300 bytes of memory') }),
    );
    expect(budget.usedBytes).toBe(250);
    expect(() => budget.shared.charge(100)).not.toThrow();
    // The session gave way to the shared state.
    expect(budget.usedBytes).toBe(300);
    expect(() => budget.shared.charge(1)).toThrow(expect.objectContaining({ code: 'STATE_FULL' }));
  });

  it('keeps at most maxSessions sessions, the one used longest ago giving its place up', () => {
    const budget = createStateBudget<string>({ maxBytes: 1000, maxSessions: 2 });
    budget.sessionStates('a').account.charge(10);
    budget.sessionStates('b').account.charge(10);
    budget.sessionStates('c').account.charge(10);
    expect(budget.usedBytes).toBe(20);
  });

  it('ignores what a request still working on a pushed-out session charges: that state is dropped', () => {
    const budget = createStateBudget<string>({ maxBytes: 100 });
    const old = budget.sessionStates('old');
    old.account.charge(60);
    budget.sessionStates('new').account.charge(60);
    old.account.charge(30);
    old.account.charge(-90);
    expect(budget.usedBytes).toBe(60);
  });

  it('gives every session back on clearSessions', () => {
    const budget = createStateBudget<string>({ maxBytes: 100 });
    budget.shared.charge(10);
    budget.sessionStates('a').account.charge(20);
    budget.clearSessions();
    expect(budget.usedBytes).toBe(10);
  });
});
