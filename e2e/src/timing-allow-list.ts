/**
 * The reads of a clock or of memory that tests and test helpers may keep, each with its reason. Every other read
 * fails e2e/src/timing-guard.test.ts: a test that times or weighs what it tests fails on a busy machine while the code
 * is right. Figures belong in benchmarks (`npm run bench:*`, under `src/bench/`); cost is counted, not timed; waits
 * use `waitFor` from `@restbus/infra/testing`, whose deadline is a timer. Keep this list short: an entry that no
 * longer matches a read fails the guard too.
 */
export const TIMING_ALLOW_LIST: ReadonlyArray<{ file: string; api: string; reason: string }> = [
  {
    file: 'gateway/src/testing/test-issuer.ts',
    api: 'Date.now',
    reason: "a token's iat and exp, set from the wall clock the verifier checks them against, not a duration",
  },
  {
    file: 'gateway/src/security/jwt-verifier.test.ts',
    api: 'Date.now',
    reason: 'the nbf of a token not valid yet, ten minutes past the wall clock jose checks it against, not a duration',
  },
  {
    file: 'e2e/src/compose-stack.ts',
    api: 'Date.now',
    reason: 'a compose project name unique to this run (restbuse2e<base36 time>), not a duration',
  },
  {
    file: 'e2e/src/cluster-stack.ts',
    api: 'Date.now',
    reason: "a unique compose project name, and the `docker logs --since` point of a service's log, not a duration",
  },
  {
    file: 'e2e/src/readme-recipes.ts',
    api: 'Date.now',
    reason:
      "where in the clock's minute the rate-limit recipe starts: its calls must fall in one window of the example's " +
      'limit, which turns with the minutes; not a duration',
  },
  {
    file: 'e2e/src/cluster-load.ts',
    api: 'Date.now',
    reason:
      'a load generator: it paces requests at a fixed rate and stamps each outcome for the timeline it prints on a ' +
      'failure; the cluster e2e asserts outcomes (statuses, nothing lost), never these figures',
  },
  {
    file: 'e2e/src/bench/soak/format-soak-report.test.ts',
    api: 'heapUsed',
    reason:
      "tests the soak report's formatting of given samples: heapTotal is a field of its fixtures, nothing is read",
  },
  {
    file: 'infra/runtime/src/nats/start-responder.integration.test.ts',
    api: 'heapUsed',
    reason: "a field of the service's STATS reply whose presence is asserted (a number), not a memory read",
  },
];
