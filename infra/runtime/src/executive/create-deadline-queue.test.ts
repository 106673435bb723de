import { createDeadlineQueue } from './create-deadline-queue';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createDeadlineQueue', () => {
  it('calls each expiry once, in the order the deadlines were added, no earlier than their time', async () => {
    const queue = createDeadlineQueue(20);
    const fired: Array<[string, number]> = [];
    const first = queue.add(() => fired.push(['first', performance.now() - first.at]));
    await sleep(5);
    const second = queue.add(() => fired.push(['second', performance.now() - second.at]));
    await sleep(60);
    expect(fired.map(([name]) => name)).toEqual(['first', 'second']);
    for (const [, late] of fired) expect(late).toBeGreaterThanOrEqual(0);
  });

  it('never calls the expiry of a deadline cancelled before its time, and still calls the others', async () => {
    const queue = createDeadlineQueue(20);
    const fired: string[] = [];
    const answered = queue.add(() => fired.push('answered'));
    queue.add(() => fired.push('late'));
    answered.cancel();
    await sleep(60);
    expect(fired).toEqual(['late']);
  });

  it('calls nothing after a deadline that expired is cancelled too late', async () => {
    const queue = createDeadlineQueue(10);
    let calls = 0;
    const deadline = queue.add(() => calls++);
    await sleep(40);
    deadline.cancel();
    await sleep(20);
    expect(calls).toBe(1);
  });

  it('arms the timer again for a deadline added after every earlier one was cancelled', async () => {
    const queue = createDeadlineQueue(20);
    const fired: string[] = [];
    queue.add(() => fired.push('cancelled')).cancel();
    await sleep(10);
    // The timer armed for the cancelled deadline wakes before this one falls due; it must wait on for it.
    queue.add(() => fired.push('pending'));
    await sleep(15);
    expect(fired).toEqual([]);
    await sleep(40);
    expect(fired).toEqual(['pending']);
  });

  it('keeps order and expiry when thousands of deadlines before a pending one are cancelled', async () => {
    const queue = createDeadlineQueue(20);
    const fired: number[] = [];
    const deadlines = Array.from({ length: 3000 }, (_, i) => queue.add(() => fired.push(i)));
    // Cancelled oldest first, as answers mostly come: the queue drops and compacts what lies before the pending ones.
    for (const deadline of deadlines.slice(0, 2997)) deadline.cancel();
    deadlines[2998].cancel();
    await sleep(60);
    expect(fired).toEqual([2997, 2999]);
  });
});
