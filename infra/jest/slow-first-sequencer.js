// Orders the test files so that the long ones start first: with two workers, a 5-minute e2e suite started last would
// run alone at the end while the other worker sits idle. jest orders by the durations it cached on an earlier run;
// a fresh clone (CI) has none, and jest would fall back to file size, which puts a long Docker suite anywhere.
const Sequencer = require('@jest/test-sequencer').default;

/** A file's weight by what it starts: Docker stacks, then NATS clusters, then servers, then nothing. */
function weightOf(path) {
  if (/\.e2e\.test\.ts$/.test(path)) return 4;
  if (/\.cluster\.integration\.test\.ts$/.test(path) || /\.browser\.test\.ts$/.test(path)) return 3;
  if (/\.integration\.test\.ts$/.test(path)) return 2;
  return 1;
}

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    // Durations jest measured on an earlier run of this checkout win; otherwise, the weight, then the size.
    const sorted = super.sort(tests);
    const timed = sorted.every((test) => this.time(test) > 0);
    if (timed) return sorted;
    const index = new Map(sorted.map((test, i) => [test, i]));
    return [...sorted].sort((a, b) => weightOf(b.path) - weightOf(a.path) || index.get(a) - index.get(b));
  }
}
module.exports = SlowFirstSequencer;
