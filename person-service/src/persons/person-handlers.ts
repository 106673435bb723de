import { randomUUID } from 'node:crypto';
import {
  STALE_HEADER,
  describeInvalidId,
  describePage,
  readPageRequest,
  replyError,
  replyJson,
  type Collection,
  type RequestMessage,
  type ResponseMessage,
} from '@restbus/infra';
import { parseNewPerson, parsePerson, type Person } from './person';

const notFound = (id: string, headers?: Record<string, string>): ResponseMessage =>
  replyError('NOT_FOUND', `no person has the id "${id}"`, headers);
/** A 400 for an id no store can take (checked before any NATS call), else undefined. */
const refuseId = (id: string): ResponseMessage | undefined => {
  const problem = describeInvalidId(id);
  return problem === undefined ? undefined : replyError('REQUEST_INVALID', `personId: ${problem}`);
};

type PersonHandler = (data: RequestMessage) => Promise<ResponseMessage>;

/**
 * The person API, one handler per operation of person-api.yml. Each answers every outcome, HTTP errors included,
 * as an ordinary response; only a broken store makes one fail (the executive answers that 500).
 */
export function createPersonHandlers(
  persons: Collection<Person>,
  /** Bytes a reply's body may take (what fits in one NATS message): a list is cut into pages that fit. */
  replyRoom: () => number,
): Record<string, PersonHandler> {
  return {
    async listPersons({ request }) {
      const wanted = readPageRequest(request, replyRoom());
      const page = await persons.list(wanted);
      return replyJson(200, page.json, describePage(page, wanted));
    },

    async createPerson({ request }) {
      const parsed = parseNewPerson(request);
      if (!parsed.ok) return replyError('REQUEST_INVALID', parsed.error);
      const person = { id: randomUUID(), ...parsed.value };
      await persons.put(person.id, person);
      return replyJson(201, person, { location: `/persons/${encodeURIComponent(person.id)}` });
    },

    async deleteAllPersons() {
      await persons.clear();
      return { status: 204 };
    },

    async getPerson({ request }) {
      const id = request.parameters.uri.personId;
      const refused = refuseId(id);
      if (refused) return refused;
      const { value: person, stale } = await persons.get(id);
      const headers: Record<string, string> = stale ? { [STALE_HEADER]: 'true' } : {};
      return person ? replyJson(200, person, headers) : notFound(id, headers);
    },

    async putPerson({ request }) {
      const parsed = parsePerson(request);
      if (!parsed.ok) return replyError('REQUEST_INVALID', parsed.error);
      const personId = request.parameters.uri.personId;
      const refused = refuseId(personId);
      if (refused) return refused;
      if (parsed.value.id !== personId) {
        return replyError(
          'REQUEST_INVALID',
          `the id in the body ("${parsed.value.id}") differs from the path parameter personId ("${personId}")`,
        );
      }
      await persons.put(personId, parsed.value);
      return replyJson(200, parsed.value);
    },

    async deletePerson({ request }) {
      const id = request.parameters.uri.personId;
      const refused = refuseId(id);
      if (refused) return refused;
      return (await persons.remove(id)) ? { status: 204 } : notFound(id);
    },
  };
}
