import { randomUUID } from 'node:crypto';
import {
  STALE_HEADER,
  describeInvalidId,
  describePage,
  readPageRequest,
  type Collection,
  type RequestMessage,
  type ResponseMessage,
} from '@restbus/infra';
import { parseNewPerson, parsePerson, type Person } from './person';

const JSON_HEADERS = { 'content-type': 'application/json' };

function json(status: number, body: unknown, headers: Record<string, string> = {}): ResponseMessage {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body };
}

const error = (status: number, message: string): ResponseMessage => json(status, { error: message });
const notFound = (id: string): ResponseMessage => error(404, `no person has the id "${id}"`);
/** A 400 for an id no store can take (checked before any NATS call), else undefined. */
const refuseId = (id: string): ResponseMessage | undefined => {
  const problem = describeInvalidId(id);
  return problem === undefined ? undefined : error(400, `personId: ${problem}`);
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
      return json(200, page.items, describePage(page, wanted));
    },

    async createPerson({ request }) {
      const parsed = parseNewPerson(request);
      if (!parsed.ok) return error(400, parsed.error);
      const person = { id: randomUUID(), ...parsed.value };
      await persons.put(person.id, person);
      return json(201, person, { location: `/persons/${encodeURIComponent(person.id)}` });
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
      return person ? json(200, person, headers) : { ...notFound(id), headers: { ...JSON_HEADERS, ...headers } };
    },

    async putPerson({ request }) {
      const parsed = parsePerson(request);
      if (!parsed.ok) return error(400, parsed.error);
      const personId = request.parameters.uri.personId;
      const refused = refuseId(personId);
      if (refused) return refused;
      if (parsed.value.id !== personId) {
        return error(
          400,
          `the id in the body ("${parsed.value.id}") differs from the path parameter personId ("${personId}")`,
        );
      }
      await persons.put(personId, parsed.value);
      return json(200, parsed.value);
    },

    async deletePerson({ request }) {
      const id = request.parameters.uri.personId;
      const refused = refuseId(id);
      if (refused) return refused;
      return (await persons.remove(id)) ? { status: 204 } : notFound(id);
    },
  };
}
