import { createDeadlineQueue } from './create-deadline-queue';

// The interval is the behaviour here: jest's fake clock (timers and the performance clock alike) moves only when the
// test moves it, so "not before its time" and "at its time" are exact, whatever the machine's load.
beforeEach(() => {
  jest.useFakeTimers();
});

afterEach(() => {
  jest.useRealTimers();
});

describe('createDeadlineQueue', () => {
  it('calls each expiry once, in the order the deadlines were added, at their time and not a millisecond earlier', () => {
    const queue = createDeadlineQueue(20);
    const fired: string[] = [];
    queue.add(() => fired.push('first'));
    jest.advanceTimersByTime(5);
    queue.add(() => fired.push('second'));
    jest.advanceTimersByTime(14);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(fired).toEqual(['first']);
    jest.advanceTimersByTime(4);
    expect(fired).toEqual(['first']);
    jest.advanceTimersByTime(1);
    expect(fired).toEqual(['first', 'second']);
    jest.advanceTimersByTime(100);
    expect(fired).toEqual(['first', 'second']);
  });

  it('dates each deadline from when it was added', () => {
    const queue = createDeadlineQueue(20);
    const first = queue.add(() => undefined);
    jest.advanceTimersByTime(5);
    const second = queue.add(() => undefined);
    expect(second.at - first.at).toBe(5);
  });

  it('never calls the expiry of a deadline cancelled before its time, and still calls the others', () => {
    const queue = createDeadlineQueue(20);
    const fired: string[] = [];
    const answered = queue.add(() => fired.push('answered'));
    queue.add(() => fired.push('late'));
    answered.cancel();
    jest.advanceTimersByTime(60);
    expect(fired).toEqual(['late']);
  });

  it('calls nothing after a deadline that expired is cancelled too late', () => {
    const queue = createDeadlineQueue(10);
    let calls = 0;
    const deadline = queue.add(() => calls++);
    jest.advanceTimersByTime(40);
    deadline.cancel();
    jest.advanceTimersByTime(20);
    expect(calls).toBe(1);
  });

  it('arms the timer again for a deadline added after every earlier one was cancelled', () => {
    const queue = createDeadlineQueue(20);
    const fired: string[] = [];
    queue.add(() => fired.push('cancelled')).cancel();
    jest.advanceTimersByTime(10);
    // The timer armed for the cancelled deadline wakes before this one falls due; it must wait on for it.
    queue.add(() => fired.push('pending'));
    jest.advanceTimersByTime(15);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(4);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(fired).toEqual(['pending']);
  });

  it('keeps order and expiry when thousands of deadlines before a pending one are cancelled', () => {
    const queue = createDeadlineQueue(20);
    const fired: number[] = [];
    const deadlines = Array.from({ length: 3000 }, (_, i) => queue.add(() => fired.push(i)));
    // Cancelled oldest first, as answers mostly come: the queue drops and compacts what lies before the pending ones.
    for (const deadline of deadlines.slice(0, 2997)) deadline.cancel();
    deadlines[2998].cancel();
    jest.advanceTimersByTime(60);
    expect(fired).toEqual([2997, 2999]);
  });
});
