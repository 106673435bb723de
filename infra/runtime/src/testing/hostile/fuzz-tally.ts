import { recordHostileCounts } from './record-hostile-counts';

const describePrototype = (): string => Object.getOwnPropertyNames(Object.prototype).sort().join();

/**
 * What one property-based fuzz suite tried and found, for the run's summary (recordHostileCounts): the cases run,
 * the crashes it counted (a throw the parser does not document), and whether Object.prototype kept the names it had
 * when the tally began. Every count is read, none written in: a suite's summary line can say "0 found" only because
 * nothing was found.
 */
export class FuzzTally {
  cases = 0;
  crashes = 0;
  private readonly prototypeAtStart = describePrototype();

  constructor(private readonly suite: string) {}

  /** Whether Object.prototype has exactly the own names it had when the tally began (no key was planted on it). */
  prototypeIntact(): boolean {
    return describePrototype() === this.prototypeAtStart;
  }

  record(): void {
    const found = { crashes: this.crashes, prototypeChanges: this.prototypeIntact() ? 0 : 1 };
    recordHostileCounts(this.suite, { tried: { cases: this.cases }, found });
  }
}
