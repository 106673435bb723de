import { connect, type NatsConnection, type Subscription } from 'nats';
import { storeSetting } from '../../store/open-store';
import { decodeResponseMessage, encodeMessage } from '../../wire/codec';
import type { RequestMessage, ResponseMessage } from '../../wire/types';
import type { Executive, Startup } from '../../executive/create-executive';
import { createRequestMessage } from '../create-request-message';
import { startNatsServer, type TestNatsServer } from '../nats-server';
import { startTestService } from '../start-test-service';
import { createRogueMessages, createRogueReplySubjects } from './hostile-service-inputs';
import { createSeededRandom, type SeededRandom } from './seeded-random';
import { createServiceProbe, runPooled, showText, type ServiceProbe } from './service-probe';

// Requests in flight at once: enough to interleave hostile and legitimate work, few enough for 2 cores to answer
// each well inside a service's 1500 ms handler deadline.
const WIDTH = 16;
// Generous: a request without an answer by then is a lost request, not a slow one.
const TIMEOUT_MS = 5000;

type Method = 'get' | 'put' | 'post' | 'delete';
type Task = () => Promise<void>;

export interface HostileCallOptions {
  /** The record id, as the path parameter of the resource URI. */
  id?: string;
  body?: string;
  contentType?: string | string[];
  query?: Record<string, string>;
}

/** A collection service as the hostile suites meet it: `/persons` and `/persons/{personId}`, say. */
export interface HostileServiceOptions<C> {
  /** The service's name, as `$SRV.PING.<name>` answers it. */
  name: string;
  collection: string;
  /** The path parameter of one record, e.g. `personId`. */
  idParameter: string;
  startups: ReadonlyArray<Startup<C>>;
}

/**
 * The service running on the JetStream store of a fresh NATS server, with two client connections: `hostile` sends
 * the attacks, `legit` the work a good client does beside them.
 */
export interface HostileServiceTarget {
  hostile: NatsConnection;
  legit: NatsConnection;
  /** The URI of one record, e.g. `/persons/{personId}`. */
  resource: string;
  /** Begins one run of the battery, judged by a fresh probe. */
  startRun(seed: number): HostileRun;
  stop(): Promise<void>;
}

export interface HostileRun extends Pick<ServiceProbe, 'findings' | 'note'> {
  random: SeededRandom;
  /** One request to the service, judged by the probe (allowed statuses, no 5xx, no leaks); counted. */
  call(
    nc: NatsConnection,
    what: string,
    method: Method,
    uri: string,
    options: HostileCallOptions,
    allowed: readonly number[],
  ): Promise<ResponseMessage | undefined>;
  /**
   * Runs the tasks with the battery's own attacks (rogue request messages on the record `known`, and deletes of the
   * whole collection whose reply would land on NATS's own subjects) in one seeded mixed order, beside `legit`.
   */
  runMixed(tasks: Task[], known: string, legit: Promise<void>): Promise<void>;
  /** The store read back: every id listed once, exactly the expected ones, each reading back as it was stored. */
  checkStore(expected: ReadonlyMap<string, unknown>): Promise<number>;
  /** Notes a responder gone quiet, a dropped service connection and the legitimate requests that failed; records. */
  finish(legitFailures: readonly string[]): Promise<void>;
}

/**
 * One request message answered, for the reproductions of single findings: 2 s, above a service's 1500 ms handler
 * deadline, so only a reply that never comes runs into it.
 */
export async function askService(
  nc: NatsConnection,
  subject: string,
  message: RequestMessage,
): Promise<ResponseMessage> {
  return decodeResponseMessage((await nc.request(subject, encodeMessage(message), { timeout: 2000 })).data);
}

export async function startHostileService<C>(options: HostileServiceOptions<C>): Promise<HostileServiceTarget> {
  const { name, collection, idParameter } = options;
  const resource = `${collection}/{${idParameter}}`;
  const nats: TestNatsServer = await startNatsServer();
  const hostile = await connect({ servers: nats.url });
  const legit = await connect({ servers: nats.url });
  let serviceNc: NatsConnection | undefined;
  const service: Executive<C> = await startTestService<C>({
    name,
    natsUrl: nats.url,
    settings: [storeSetting],
    // The last startup only keeps the service's own connection, to see whether NATS ever drops it.
    startups: [...options.startups, (context) => void (serviceNc = context.nc)],
    argv: ['--store', 'jetstream'],
  });

  function startRun(seed: number): HostileRun {
    const random = createSeededRandom(seed);
    const probe = createServiceProbe(serviceNc!, TIMEOUT_MS);
    const { note } = probe;
    let requests = 0;
    let messages = 0;
    const watchers: Subscription[] = [];

    const call: HostileRun['call'] = (nc, what, method, uri, callOptions, allowed) => {
      requests++;
      const { id, contentType } = callOptions;
      const message = createRequestMessage({
        method,
        uri,
        headers: contentType === undefined ? {} : { 'content-type': contentType },
        body: callOptions.body ?? '',
        parameters: { query: callOptions.query ?? {}, uri: id === undefined ? {} : { [idParameter]: id } },
      });
      return probe.exchange(nc, what, `easer.${method}_${uri}`, message, allowed);
    };

    async function runMixed(tasks: Task[], known: string, legitRun: Promise<void>): Promise<void> {
      // Rogue request messages, straight onto the subject of one record.
      const valid = createRequestMessage({
        method: 'get',
        uri: resource,
        parameters: { query: {}, uri: { [idParameter]: known } },
      });
      const rogueTasks = createRogueMessages(valid, idParameter).map((rogue) => async () => {
        messages++;
        await probe.exchange(hostile, `message with ${rogue.label}`, `easer.get_${resource}`, rogue.payload, [400]);
      });
      // Requests whose reply would land on a subject of NATS itself: dropped unread, nothing published there.
      const mallory = Buffer.from('mallory', 'utf8').toString('base64url');
      const rogueSubjects = createRogueReplySubjects(collection.slice(1), mallory);
      watchers.push(...rogueSubjects.map((subject) => hostile.subscribe(subject)));
      await hostile.flush();

      const all = [...tasks, ...rogueTasks];
      // Shuffled with the seed, so that every kind of attack meets the others in a fixed but mixed order.
      for (let i = all.length - 1; i > 0; i--) {
        const j = random.below(i + 1);
        [all[i], all[j]] = [all[j], all[i]];
      }
      const replyToRogue = (async () => {
        for (const reply of rogueSubjects) {
          messages++;
          const deleteAll = createRequestMessage({ method: 'delete', uri: collection });
          hostile.publish(`easer.delete_${collection}`, encodeMessage(deleteAll), { reply });
        }
      })();
      await Promise.all([runPooled(all, WIDTH), legitRun, replyToRogue]);
    }

    async function checkStore(expected: ReadonlyMap<string, unknown>): Promise<number> {
      const list = await call(legit, 'list', 'get', collection, { query: { limit: '1000' } }, [200]);
      // Whatever lands in the bucket behind the service's back is listed too, and need not be a record.
      const listed = (list?.body as Array<{ id?: unknown } | null> | undefined) ?? [];
      const listedIds = listed.map((record) => String(record?.id));
      if (new Set(listedIds).size !== listedIds.length) note('collisions', 'the list has an id twice');
      for (const id of [...expected.keys()].filter((id) => !listedIds.includes(id)))
        note('collisions', `${showText(id)} was stored but is not listed`);
      for (const id of listedIds.filter((id) => !expected.has(id)))
        note('collisions', `${showText(id)} is listed but was never accepted`);
      await runPooled(
        [...expected].map(([id, record]) => async () => {
          const read = await call(legit, `final GET ${showText(id)}`, 'get', resource, { id }, [200]);
          if (read && JSON.stringify(read.body) !== JSON.stringify(record))
            note('collisions', `${showText(id)} reads back as ${JSON.stringify(read.body).slice(0, 80)}`);
        }),
        WIDTH,
      );
      return listed.length;
    }

    async function finish(legitFailures: readonly string[]): Promise<void> {
      await hostile.flush();
      const landed = watchers.filter((watcher) => watcher.getReceived() > 0).map((watcher) => watcher.getSubject());
      for (const subject of landed) note('wrongAnswers', `a reply was published to ${subject}`);
      watchers.forEach((watcher) => watcher.unsubscribe());
      const ping = await legit
        .request(`$SRV.PING.${name}`, '', { timeout: TIMEOUT_MS })
        .then((msg) => msg.json<{ name: string }>().name)
        .catch((err: unknown) => String(err));
      if (ping !== name) note('crashes', `the responder did not answer $SRV.PING: ${ping}`);
      probe.checkConnection();
      for (const failure of legitFailures) note('disconnects', `legitimate request ${failure}`);
      probe.record(name, { requests, messages });
    }

    return { random, findings: probe.findings, note, call, runMixed, checkStore, finish };
  }

  return {
    hostile,
    legit,
    resource,
    startRun,
    async stop() {
      await service.stop();
      await hostile.close();
      await legit.close();
      await nats.dispose();
    },
  };
}
