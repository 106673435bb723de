export { findNatsServer, startNatsCluster, startNatsServer } from './nats-server';
export type { ClusterFaults, NatsClusterOptions, TestNatsCluster, TestNatsServer } from './nats-server';
export { collectGarbage, collectGarbageObserved } from './bench/collect-garbage';
export { startFaultProxy } from './fault-proxy';
export type { FaultMode, FaultProxy } from './fault-proxy';
export { createRequestMessage } from './create-request-message';
export { EASER_CASES, type EaserCase } from './easer-request-messages';
export { freePort, killChildren, killChildrenOnExit, startChild, waitUntil } from './bench/children';
export type { Child } from './bench/children';
export { startHelloResponder } from './bench/hello-responder';
export { median, summarize } from './bench/load-result';
export type { LoadResult } from './bench/load-result';
export { prismVersion, startPrism } from './bench/prism';
export { measureRawNats } from './bench/raw-nats';
export { runWrk } from './bench/run-wrk';
export { storePersons } from './bench/store-persons';
export { writePutScript } from './bench/write-put-script';
export { startTestService } from './start-test-service';
export { findInvalidSchemas, findInvalidSettings } from './find-invalid-schemas';
export { countLoadCompiles } from './count-load-compiles';
export { waitFor } from './wait-for';
export type { WaitForOptions } from './wait-for';
export type { TestServiceOptions } from './start-test-service';
export { createSeededRandom } from './hostile/seeded-random';
export type { SeededRandom } from './hostile/seeded-random';
export { describeCost, measureCost, recordCost } from './bench/cost/measure-cost';
export type { CostReport, CostRun, MeasureCostOptions } from './bench/cost/measure-cost';
export { measureWithProbe } from './bench/cost/measure-with-probe';
export type { ProbedCost, ProbeOptions } from './bench/cost/measure-with-probe';
export { recordHostileCounts } from './hostile/record-hostile-counts';
export { FuzzTally } from './hostile/fuzz-tally';
export type { HostileCounts } from './hostile/record-hostile-counts';
export { HOSTILE_PIECES } from './hostile/hostile-pieces';
export {
  ACCEPTED_CONTENT_TYPES,
  REFUSED_CONTENT_TYPES,
  createHostileIds,
  createJunkBodies,
  createRogueMessages,
  createRogueReplySubjects,
} from './hostile/hostile-service-inputs';
export type { HostileBody, RogueMessage } from './hostile/hostile-service-inputs';
export { createServiceProbe, isStorableId, runPooled, showText } from './hostile/service-probe';
export { askService, startHostileService } from './hostile/hostile-service-run';
export type { HostileCallOptions, HostileRun, HostileServiceTarget } from './hostile/hostile-service-run';
export type { ServiceFinding, ServiceFindingKind, ServiceProbe } from './hostile/service-probe';
export { createSseParser } from './parse-sse';
export type { SseBlock } from './parse-sse';
export { readSseEvents } from './read-sse-events';
export type { ReadSseOptions, SseEvent } from './read-sse-events';
export { exchangeRaw, findErrorAnswerProblems, sendRaw } from './raw-http';
export type { RawExchange, RawResponse } from './raw-http';
export { DIALECT_CASES } from './openapi-dialect-cases';
export type { DialectCase } from './openapi-dialect-cases';
export { OtlpReceiver } from './otlp-receiver';
export type { ReceivedSpan } from './otlp-receiver';
export {
  combineSlices,
  cpuPerRequest,
  reportRounds,
  runRounds,
  runSideBySide,
  stopBenchServers,
} from './bench/side-by-side';
export type { BenchServer, SideBySideOptions, SideBySideRound } from './bench/side-by-side';
export { startOtlpReceiverProcess } from './bench/start-otlp-receiver-process';
export { tracingEnvironments } from './bench/tracing-environments';
