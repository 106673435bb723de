import { randomUUID } from 'node:crypto';
import type { ResponseMessage, Route } from '@restbus/infra';
import { parseNewPerson, parsePerson } from './person';
import type { PersonStore } from './person-store';

const JSON_HEADERS = { 'content-type': 'application/json' };

function json(status: number, body: unknown, headers: Record<string, string> = {}): ResponseMessage {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body };
}

const error = (status: number, message: string): ResponseMessage => json(status, { error: message });

/** The person API, one route per operation of person-api.yml. HTTP-level errors are ordinary replies. */
export function createPersonRoutes(store: PersonStore): Route[] {
  return [
    {
      method: 'get',
      uri: '/persons',
      handle: async () => json(200, await store.list()),
    },
    {
      method: 'post',
      uri: '/persons',
      handle: async ({ request }) => {
        const parsed = parseNewPerson(request.headers['content-type'], request.body);
        if (!parsed.ok) return error(400, parsed.error);
        const person = await store.put({ id: randomUUID(), ...parsed.value });
        return json(201, person, { location: `/persons/${encodeURIComponent(person.id)}` });
      },
    },
    {
      method: 'delete',
      uri: '/persons',
      handle: async () => {
        await store.clear();
        return { status: 204 };
      },
    },
    {
      method: 'get',
      uri: '/persons/{personId}',
      handle: async ({ request }) => {
        const person = await store.get(request.parameters.uri.personId);
        return person ? json(200, person) : error(404, `no person has the id "${request.parameters.uri.personId}"`);
      },
    },
    {
      method: 'put',
      uri: '/persons/{personId}',
      handle: async ({ request }) => {
        const parsed = parsePerson(request.headers['content-type'], request.body);
        if (!parsed.ok) return error(400, parsed.error);
        const personId = request.parameters.uri.personId;
        if (parsed.value.id !== personId) {
          return error(
            400,
            `the id in the body ("${parsed.value.id}") differs from the path parameter personId ("${personId}")`,
          );
        }
        return json(200, await store.put(parsed.value));
      },
    },
    {
      method: 'delete',
      uri: '/persons/{personId}',
      handle: async ({ request }) =>
        (await store.remove(request.parameters.uri.personId))
          ? { status: 204 }
          : error(404, `no person has the id "${request.parameters.uri.personId}"`),
    },
  ];
}
