import { Events, type NatsConnection } from 'nats';
import { decodeResponseMessage, encodeMessage } from '../../wire/codec';
import type { RequestMessage, ResponseMessage } from '../../wire/types';
import { recordHostileCounts } from './record-hostile-counts';

/** What a hostile suite against a NATS service can find; every count is expected to be zero. */
export type ServiceFindingKind = 'crashes' | 'disconnects' | 'errors5xx' | 'collisions' | 'timeouts' | 'wrongAnswers';
export interface ServiceFinding {
  kind: ServiceFindingKind;
  what: string;
}

// A stack frame, a source position, Node's internals or a path of this machine: none belongs in an answer.
const LEAKS = [/\n\s*at\s/, /node:internal/, /node_modules/, /\.[jt]s:\d+/, /\/(home|root|usr|tmp|work)\//];

const isWellFormed = (text: string): boolean => {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};

/** The suites' own rule for an id a store must take (not the code's, so that they check it): 1-512 bytes, well formed. */
export const isStorableId = (id: string): boolean =>
  id !== '' && isWellFormed(id) && Buffer.byteLength(id, 'utf8') <= 512;

/** A text as a finding names it: quoted, cut at 40 characters. */
export const showText = (text: string): string =>
  JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…(${text.length})` : text);

/** Runs tasks `width` at a time. */
export async function runPooled(tasks: Array<() => Promise<void>>, width: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: width }, worker));
}

export interface ServiceProbe {
  findings: ServiceFinding[];
  note(kind: ServiceFindingKind, what: string): void;
  /** Sends one request message (or raw payload) and judges the reply; undefined when there was no usable one. */
  exchange(
    nc: NatsConnection,
    what: string,
    subject: string,
    payload: RequestMessage | Uint8Array,
    allowed: readonly number[],
  ): Promise<ResponseMessage | undefined>;
  /** Notes what happened to the service's own connection since the probe began: closed, made anew, dropped. */
  checkConnection(): void;
  /** Records the counts for the run's summary under `suite`. */
  record(suite: string, tried: Record<string, number>): void;
}

/**
 * The judge of a hostile suite against a NATS service: every reply must come in time, be a response message, have
 * an allowed status below 500, an error sentence with any 4xx, and nothing of the machine in it. `serviceNc` is
 * the service's own connection, watched for drops.
 */
export function createServiceProbe(serviceNc: NatsConnection, timeoutMs: number): ServiceProbe {
  const findings: ServiceFinding[] = [];
  const note = (kind: ServiceFindingKind, what: string): void => void findings.push({ kind, what });
  // A rejection the service leaves unhandled is not seen here: jest catches it and fails the test with it (a
  // listener on the test's process never hears it). A crash counted here is a responder gone quiet.
  const connectionEvents: string[] = [];
  const clientId = serviceNc.info?.client_id;
  void (async () => {
    for await (const status of serviceNc.status()) {
      if (status.type === Events.Disconnect || status.type === Events.Reconnect) connectionEvents.push(status.type);
    }
  })();

  return {
    findings,
    note,
    async exchange(nc, what, subject, payload, allowed) {
      let data: Uint8Array;
      try {
        const request = ArrayBuffer.isView(payload) ? payload : encodeMessage(payload);
        data = (await nc.request(subject, request, { timeout: timeoutMs })).data;
      } catch (err) {
        note('timeouts', `${what}: ${String(err)}`);
        return undefined;
      }
      let reply: ResponseMessage;
      try {
        reply = decodeResponseMessage(data);
      } catch (err) {
        note('wrongAnswers', `${what}: not a response message: ${String(err)}`);
        return undefined;
      }
      const status = reply.status ?? 200;
      const text = new TextDecoder().decode(data);
      if (status >= 500) note('errors5xx', `${what}: ${status} ${text.slice(0, 200)}`);
      else if (!allowed.includes(status)) note('wrongAnswers', `${what}: ${status}, not ${allowed.join('/')}`);
      if (status >= 400 && typeof (reply.body as { error?: unknown } | undefined)?.error !== 'string')
        note('wrongAnswers', `${what}: ${status} without an error sentence`);
      for (const leak of LEAKS) if (leak.test(text)) note('wrongAnswers', `${what}: ${leak} in ${text.slice(0, 200)}`);
      return reply;
    },
    checkConnection() {
      if (serviceNc.isClosed()) note('disconnects', 'the service connection is closed');
      if (serviceNc.info?.client_id !== clientId) note('disconnects', 'the service connection was made anew');
      for (const event of connectionEvents) note('disconnects', `the service connection reported ${event}`);
    },
    record(suite, tried) {
      const count = (kind: ServiceFindingKind): number => findings.filter((finding) => finding.kind === kind).length;
      recordHostileCounts(suite, {
        tried,
        found: {
          crashes: count('crashes'),
          disconnects: count('disconnects'),
          errors5xx: count('errors5xx'),
          collisions: count('collisions'),
          timeouts: count('timeouts'),
          wrongAnswers: count('wrongAnswers'),
        },
      });
    },
  };
}
