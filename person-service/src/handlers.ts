// person-service's handlers, one per operation of person-api.yml (rest-tool generate-service wrote this file once as
// stubs and never touches it again; the compiler names a missing one after the document changes).
import { randomUUID } from 'node:crypto';
import {
  RestbusError,
  STALE_HEADER,
  describeInvalidId,
  describePage,
  jsonTextOf,
  replyJson,
  type Collection,
  type PageRequest,
} from '@restbus/infra';
import type { Handlers } from './generated/contract';
import type { Person } from './persons/person';
import type { PersonEvents } from './persons/person-events';

/** A JSON reply as every restbus reply is made (replyJson), its status and body kept as the contract types them. */
const json = <S extends number, B>(status: S, body: B, headers?: Record<string, string>) => ({
  ...replyJson(status, body, headers),
  status,
  body,
});

const notFound = (id: string, headers?: Record<string, string>) =>
  json(404, { error: `no person has the id "${id}"`, code: 'NOT_FOUND' }, headers);

/**
 * Throws 400 for an id no store can take, before any NATS call. It is the stores' rule (bytes, lone surrogates),
 * which no schema of person-api.yml can say; the document declares the 400 (BadId) and the responder answers the
 * throw, so that one check serves every handler that takes an id.
 */
function assertPersonId(id: string): void {
  const problem = describeInvalidId(id);
  if (problem !== undefined) throw new RestbusError('REQUEST_INVALID', `personId: ${problem}`);
}

/**
 * The person API. Each call's parameters and body have been checked against person-api.yml before its handler
 * runs; a handler answers every outcome the document declares as an ordinary reply, and only a broken store (or an
 * id no store takes) makes one throw, which the executive answers.
 */
export function createPersonHandlers(
  persons: Collection<Person>,
  /** Bytes a reply's body may take (what fits in one NATS message): a list is cut into pages that fit. */
  replyRoom: () => number,
  /** Where each acknowledged write is told, after it succeeded (GET /persons/events streams them). */
  events: Pick<PersonEvents, 'publish' | 'ready'>,
): Handlers {
  return {
    async getPersons({ query }) {
      const wanted: PageRequest = { maxBytes: replyRoom() };
      if (query.limit !== undefined) wanted.limit = query.limit;
      if (query.cursor !== undefined) wanted.cursor = query.cursor;
      const page = await persons.list(wanted);
      // The page's JSON text, encoded once while the list is unchanged, is sent as it is.
      return json(200, jsonTextOf<Person[]>(page.json), describePage(page, wanted));
    },
    async postPersons({ body }) {
      const person = { id: randomUUID(), ...body };
      await persons.put(person.id, person);
      await events.publish({ type: 'created', id: person.id, person });
      return json(201, person, { location: `/persons/${encodeURIComponent(person.id)}` });
    },
    async deletePersons() {
      await persons.clear();
      await events.publish({ type: 'cleared' });
      return { status: 204 };
    },
    async getPersonsEvents() {
      await events.ready();
      // The stream opens with no snapshot (a body here would be sent as its first event): a client resuming with
      // Last-Event-ID must not get the whole list again.
      return { status: 200 };
    },
    async getPersonsByPersonId({ params: { personId } }) {
      assertPersonId(personId);
      const { value: person, stale } = await persons.get(personId);
      const headers: Record<string, string> = stale ? { [STALE_HEADER]: 'true' } : {};
      return person ? json(200, person, headers) : notFound(personId, headers);
    },
    async putPersonsByPersonId({ params: { personId }, body: person }) {
      assertPersonId(personId);
      if (person.id !== personId) {
        const error = `the id in the body ("${person.id}") differs from the path parameter personId ("${personId}")`;
        return json(400, { error, code: 'REQUEST_INVALID' });
      }
      // A create that finds the id taken changes nothing; then the put replaces: the event says which it was.
      const created = await persons.create(personId, person);
      if (!created) await persons.put(personId, person);
      await events.publish({ type: created ? 'created' : 'updated', id: personId, person });
      return json(200, person);
    },
    async deletePersonsByPersonId({ params: { personId } }) {
      assertPersonId(personId);
      if (!(await persons.remove(personId))) return notFound(personId);
      await events.publish({ type: 'deleted', id: personId });
      return { status: 204 };
    },
  };
}
