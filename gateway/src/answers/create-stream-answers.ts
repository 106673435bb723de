import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import Negotiator from 'negotiator';
import {
  readResumePoint,
  refuseRequest,
  RestbusError,
  type CallerIdentity,
  type Logger,
  type ResponseMessage,
} from '@restbus/infra';
import type { Forwarder } from '../forward/create-forwarder';
import { toHttpAnswer } from '../http/send-reply';
import { toIncomingRequest } from '../http/to-incoming-request';
import { buildMockEvents } from '../mock/build-mock-events';
import { createSchemaSampler } from '../mock/create-schema-sampler';
import { admitCall, attachCaller } from '../security/admit-call';
import { traceStep } from '../observability/call-spans';
import type { GatewayMetrics } from '../observability/create-metrics';
import type { TraceContext } from '../observability/trace-context';
import type { ApiEndpoint } from '../openapi/endpoint';
import type { ApiOperation } from '@restbus/openapi';
import { expandStreamSubject } from '../streams/expand-stream-subject';
import { streamKeyOf, type StreamService, type StreamTarget } from '../streams/create-stream-service';
import { SNAPSHOT_SEQUENCE_HEADER, type ServiceAnswer } from '../streams/stream-opener';
import type { StreamEvent } from '../streams/stream-event';
import type { CallAnswer, CompiledEndpoint } from '../call/call';
import { CallFailures, isNoService } from './call-failures';
import {
  chooseAnswerKind,
  ERROR_CODE_HEADER,
  MOCKED_HEADER,
  NOT_IMPLEMENTED_MESSAGE,
  type AnswerKind,
} from './create-call-answers';

/** An HTTP upgrade routed to a described operation (a WebSocket asked for on its path). */
export interface Upgrade {
  endpoint: CompiledEndpoint;
  params: Record<string, string>;
  query: string;
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  /** What every answer carries: the request id, CORS. */
  headers: OutgoingHttpHeaders;
  trace: TraceContext;
}

export interface StreamAnswerDeps {
  streams: StreamService;
  forward?: Forwarder;
  mock: boolean;
  mockWrites: boolean;
  /** Whether the mock checks that credentials are present (when `--auth` is left out), as for ordinary calls. */
  mockChecksCredentials?: boolean;
  /** `--authDropCredentials`: a verified call's `Authorization` header is not sent on. */
  dropCredentials?: boolean;
  metrics: GatewayMetrics;
  logger: Logger;
}

export interface StreamAnswers {
  /** The answer of a stream operation's calls: a stream when the client accepts `text/event-stream`, else `ordinary`. */
  forCalls(endpoint: Omit<CompiledEndpoint, 'answer'>, ordinary: CallAnswer): CallAnswer;
  /** Answers an upgrade on a described path: a WebSocket stream, or the refusal on the raw socket. */
  upgrade(upgrade: Upgrade): Promise<void>;
}

/** How one stream's failures and refusals reach its client: an HTTP response, or the raw socket of an upgrade. */
interface Answerer {
  error(error: RestbusError): void;
  reply(reply: ResponseMessage): void;
}

interface StreamCall {
  endpoint: Omit<CompiledEndpoint, 'answer'>;
  params: Record<string, string>;
  query: string;
  req: IncomingMessage;
  headers: OutgoingHttpHeaders;
  trace: TraceContext;
  user?: CallerIdentity;
}

const EVENT_STREAM = 'text/event-stream';
const NO_BODY = Buffer.alloc(0);

/**
 * Whether a GET asks for the event stream. An operation that also answers in another type (JSON, say) streams only
 * to a client that names `text/event-stream`; one that answers nothing but the stream streams to any client that
 * does not refuse it (no Accept, `*\/*`: `curl -N` as it is).
 */
export function acceptsEventStream(accept: string | undefined, onlyStream: boolean): boolean {
  if (onlyStream)
    return accept === undefined || new Negotiator({ headers: { accept } }).mediaType([EVENT_STREAM]) !== undefined;
  if (accept === undefined || !accept.toLowerCase().includes(EVENT_STREAM)) return false;
  return new Negotiator({ headers: { accept } }).mediaType([EVENT_STREAM]) === EVENT_STREAM;
}

/** Whether every 2xx response of the operation is the event stream (or has no body): then plain clients get it too. */
function answersOnlyStream(model: ApiOperation): boolean {
  return model.responses
    .filter((response) => /^2(\d\d|XX)$/.test(response.status))
    .every((response) =>
      Object.keys(response.content).every((type) => type.split(';')[0].trim().toLowerCase() === EVENT_STREAM),
    );
}

/** The service's reply as the opener needs it: its status, and its body as bytes (the snapshot). */
/** The stream sequence a service's snapshot reaches (SNAPSHOT_SEQUENCE_HEADER), when it gives a whole number. */
function readSnapshotSeq(reply: ResponseMessage): number | undefined {
  const entry = Object.entries(reply.headers ?? {}).find(([name]) => name.toLowerCase() === SNAPSHOT_SEQUENCE_HEADER);
  const text = String(entry?.[1] ?? '');
  return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

function toServiceAnswer(reply: ResponseMessage): ServiceAnswer {
  const status = reply.status ?? 200;
  const snapshotSeq = readSnapshotSeq(reply);
  const { body } = reply;
  const answer: ServiceAnswer = snapshotSeq === undefined ? { status } : { status, snapshotSeq };
  if (body === undefined || body === null) return answer;
  if (body instanceof Uint8Array) return { ...answer, body };
  return { ...answer, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) };
}

/** Writes an HTTP answer on the raw socket of an upgrade that is refused, and closes it. */
function writeOnSocket(
  socket: Duplex,
  status: number,
  headers: OutgoingHttpHeaders,
  body: string | Uint8Array | undefined,
): void {
  if (socket.destroyed || !socket.writable) return;
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
  for (const [name, value] of Object.entries({ ...headers, connection: 'close' })) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) head += `${name}: ${String(item)}\r\n`;
  }
  const bytes = body === undefined ? NO_BODY : typeof body === 'string' ? Buffer.from(body) : body;
  socket.end(Buffer.concat([Buffer.from(`${head}\r\n`), bytes]), () => socket.destroy());
}

/** Writes an error in the one error shape on a raw socket. */
export function refuseUpgrade(socket: Duplex, error: RestbusError, headers: OutgoingHttpHeaders = {}): void {
  const body = JSON.stringify({ error: error.message, code: error.code, ...error.details });
  writeOnSocket(
    socket,
    error.status,
    {
      ...headers,
      ...error.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    },
    body,
  );
}

/**
 * The answers of stream operations (`x-restbus-stream`, issue 32), over SSE and WebSocket: the path parameters make
 * the subject, the service decides with its reply to the forwarded GET (createStreamOpener), -m sends the examples.
 * Chosen per endpoint as its ordinary answer is (chooseAnswerKind): without -u or -m, a stream operation answers 501
 * as any operation does.
 */
export function createStreamAnswers(deps: StreamAnswerDeps): StreamAnswers {
  const { streams, forward, metrics, logger } = deps;
  const settings = { forwarding: forward !== undefined, mock: deps.mock, mockWrites: deps.mockWrites };
  const sampler = createSchemaSampler();
  // Built on the first mocked stream of an operation; a reload brings new endpoints (and forgets these).
  const mockEvents = new WeakMap<ApiEndpoint, StreamEvent[]>();
  const eventsOf = (endpoint: ApiEndpoint): StreamEvent[] => {
    let events = mockEvents.get(endpoint);
    if (!events) mockEvents.set(endpoint, (events = buildMockEvents(endpoint, sampler)));
    return events;
  };

  const failures = new CallFailures({ metrics, logger, checksCredentials: deps.mockChecksCredentials !== false });
  const toFailure = (err: unknown): RestbusError => failures.toFailure(err, 'the event stream could not be opened');

  const openMock = async (call: StreamCall, target: StreamTarget, answer: Answerer, since?: number): Promise<void> => {
    const { endpoint, req, query } = call;
    const refusal = failures.findMissingCredentials(endpoint.source, req, query);
    if (refusal) {
      answer.error(refusal);
      return;
    }
    const key = streamKeyOf(endpoint.source.model) ?? '';
    await streams.openMock(target, { key, events: eventsOf(endpoint.source), since });
    metrics.answered(endpoint.source.model.path, 'GET', 'mock');
  };

  /** Opens the stream of a call on `target`, or answers why not. */
  async function answerStream(call: StreamCall, kind: AnswerKind, target: StreamTarget, answer: Answerer) {
    const { endpoint, req, query, params, trace } = call;
    const { model } = endpoint.source;
    const declared = model.stream!;
    let since: number | undefined;
    const refusal = endpoint.policy && (await admitCall(endpoint.policy, call, { metrics, logger, trace }));
    if (refusal) {
      answer.error(refusal);
      return;
    }
    try {
      since = declared.stream ? readResumePoint(req.headers, query) : undefined;
      const spec = { subject: expandStreamSubject(declared.subject, params), stream: declared.stream, since };
      if (kind === 'mock' || !forward) {
        await openMock(call, target, answer, since);
        return;
      }
      const request = toIncomingRequest(req, query, params, NO_BODY);
      attachCaller(request, call, deps.dropCredentials === true);
      const refusal = endpoint.validate ? await endpoint.validate(request) : undefined;
      if (refusal) {
        answer.error(refuseRequest('notAsDescribed', refusal.message, { details: { problems: refusal.problems } }));
        return;
      }
      let reply: ResponseMessage = {};
      const ask = async (): Promise<ServiceAnswer> => {
        // 'stream': a 2xx reply is the stream's first event, and the reply checks read it so.
        reply = await forward(endpoint as CompiledEndpoint, request, trace, 'stream');
        return toServiceAnswer(reply);
      };
      // Its span says where the stream goes and where a resumed one picks up (Last-Event-ID).
      const outcome = await traceStep(
        trace,
        since === undefined ? 'open stream' : 'resume stream',
        () => streams.open(target, { key: streamKeyOf(model) ?? '', spec, ask }),
        {
          'messaging.destination.name': spec.subject,
          ...(declared.stream !== undefined && { 'restbus.stream.name': declared.stream }),
          ...(since !== undefined && { 'restbus.stream.resume_after': since }),
        },
      );
      if (outcome.opened) metrics.answered(model.path, 'GET', 'service');
      else answer.reply(reply);
    } catch (err) {
      const error = toFailure(err);
      if (kind === 'forward-then-mock' && isNoService(error)) {
        failures.logStandIn(error, call, 'GET', 'the mock streams in its place');
        if (target.kind === 'sse') target.headers = { ...target.headers, [MOCKED_HEADER]: 'true' };
        try {
          await openMock(call, target, answer, since);
        } catch (mockErr) {
          answer.error(toFailure(mockErr));
        }
        return;
      }
      answer.error(error);
    }
  }

  return {
    forCalls(endpoint, ordinary) {
      if (!endpoint.source.model.stream) return ordinary;
      const kind = chooseAnswerKind(settings, 'get');
      if (kind === 'not-implemented') return ordinary;
      const onlyStream = answersOnlyStream(endpoint.source.model);
      return async function answerStreamCall(call) {
        // A HEAD has no body to stream: it is answered as the GET's ordinary call is.
        if (call.req.method !== 'GET' || !acceptsEventStream(call.req.headers.accept, onlyStream))
          return ordinary(call);
        const answer: Answerer = {
          error: (error) => failures.sendFailure(call.res, error, call.headers, call, 'GET'),
          reply: (reply) => void failures.sendServiceReply(call.res, reply, call.headers, call, 'GET'),
        };
        await answerStream(call, kind, { kind: 'sse', res: call.res, headers: call.headers }, answer);
      };
    },
    async upgrade(upgrade) {
      const { endpoint, socket, headers } = upgrade;
      const answer: Answerer = {
        error(error) {
          failures.log(error, upgrade, 'GET');
          refuseUpgrade(socket, error, headers);
        },
        reply(reply) {
          try {
            const http = toHttpAnswer(reply);
            writeOnSocket(socket, http.status, { ...http.headers, ...headers }, http.body);
          } catch (err) {
            this.error(toFailure(err));
          }
        },
      };
      if (!endpoint.source.model.stream) {
        answer.error(
          refuseRequest('notAsDescribed', `${endpoint.source.model.path} is no event stream: it takes no WebSocket`),
        );
        return;
      }
      const kind = chooseAnswerKind(settings, 'get');
      if (kind === 'not-implemented') {
        const body = JSON.stringify({ error: NOT_IMPLEMENTED_MESSAGE });
        writeOnSocket(
          socket,
          501,
          {
            ...headers,
            [ERROR_CODE_HEADER]: 'NOT_IMPLEMENTED',
            'content-type': 'application/json; charset=utf-8',
            'content-length': Buffer.byteLength(body),
          },
          body,
        );
        return;
      }
      await answerStream(upgrade, kind, { kind: 'ws', req: upgrade.req, socket, head: upgrade.head }, answer);
    },
  };
}
