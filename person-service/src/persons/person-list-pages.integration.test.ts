import { connect, type NatsConnection } from 'nats';
import { encodeMessage, measureReplyRoom, storeSetting, type Executive, type ResponseMessage } from '@restbus/infra';
import { createRequestMessage, startNatsServer, startTestService, type TestNatsServer } from '@restbus/infra/testing';
import { registerPersons, type PersonServiceSettings } from '../register-persons';

// A small max_payload, so that a collection that does not fit in one reply is cheap to store.
const MAX_PAYLOAD = 64 * 1024;

let server: TestNatsServer;
let nc: NatsConnection;
let service: Executive<PersonServiceSettings>;

beforeAll(async () => {
  server = await startNatsServer({ maxPayload: MAX_PAYLOAD });
  nc = await connect({ servers: server.url });
});
afterAll(async () => {
  await nc?.close();
  await server?.dispose();
});

interface Person {
  id: string;
  familyName: string;
  givenName: string;
}

async function ask(
  method: 'get' | 'put' | 'delete',
  uri: string,
  options: { query?: Record<string, string>; id?: string; body?: unknown } = {},
): Promise<ResponseMessage> {
  const message = createRequestMessage({
    method,
    uri,
    headers: options.body === undefined ? {} : { 'content-type': 'application/json' },
    body: options.body === undefined ? '' : JSON.stringify(options.body),
    parameters: { query: options.query ?? {}, uri: options.id === undefined ? {} : { personId: options.id } },
  });
  const reply = await nc.request(`easer.${method}_${uri}`, encodeMessage(message), { timeout: 5000 });
  return reply.json<ResponseMessage>();
}

async function storePersons(count: number, nameLength: number, fill = 'x'): Promise<Person[]> {
  const persons = Array.from({ length: count }, (_, i) => ({
    id: `p${String(i).padStart(3, '0')}`,
    familyName: `F${i}`.padEnd(nameLength, fill),
    givenName: 'G',
  }));
  // One at a time: the list's order is the order of the writes.
  for (const person of persons) {
    expect(await ask('put', '/persons/{personId}', { id: person.id, body: person })).toMatchObject({ status: 200 });
  }
  return persons;
}

const linkOf = (reply: ResponseMessage): string | undefined => reply.headers?.link as string | undefined;
const queryOf = (link: string): Record<string, string> => {
  const match = /^<\?([^>]*)>; rel="next"$/.exec(link);
  if (!match) throw new Error(`not a next link: ${link}`);
  return Object.fromEntries(new URLSearchParams(match[1]));
};

/** Follows the next links from the first page; resolves with every page's persons. */
async function readAllPages(query: Record<string, string>): Promise<{ pages: Person[][]; links: string[] }> {
  const pages: Person[][] = [];
  const links: string[] = [];
  for (let next: Record<string, string> | undefined = query; next;) {
    const reply = await ask('get', '/persons', { query: next });
    expect(reply.status).toBe(200);
    pages.push(reply.body as Person[]);
    const link = linkOf(reply);
    if (link) links.push(link);
    next = link ? queryOf(link) : undefined;
    if (pages.length > 200) throw new Error('the pages do not end');
  }
  return { pages, links };
}

describe.each(['memory', 'jetstream'])('GET /persons on the %s store', (store) => {
  beforeEach(async () => {
    service = await startTestService<PersonServiceSettings>({
      name: 'person-service',
      natsUrl: server.url,
      settings: [storeSetting],
      startups: [registerPersons],
      argv: ['--store', store],
    });
    await ask('delete', '/persons');
  });
  afterEach(() => service.stop());

  it('answers the whole collection, 150 persons in one array and no Link, when it fits in one reply', async () => {
    const persons = await storePersons(150, 10);
    const reply = await ask('get', '/persons');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(persons);
    expect(linkOf(reply)).toBeUndefined();
  });

  it('answers pages of ?limit= persons with a Link to the next when the client asks for them', async () => {
    const persons = await storePersons(150, 10);
    const { pages, links } = await readAllPages({ limit: '10' });
    expect(pages.map((page) => page.length)).toEqual(Array(15).fill(10));
    expect(pages.flat()).toEqual(persons);
    expect(links).toHaveLength(14);
    for (const link of links) expect(queryOf(link)).toMatchObject({ limit: '10' });
  });

  it('pages with a Link, without being asked, only when the collection does not fit in one reply', async () => {
    // 150 persons of about 1 KB each: more than the reply room of a 64 KB max_payload.
    const persons = await storePersons(150, 1000);
    const room = measureReplyRoom(MAX_PAYLOAD);
    const { pages, links } = await readAllPages({});
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat()).toEqual(persons);
    for (const page of pages) expect(JSON.stringify(page).length).toBeLessThanOrEqual(room);
    // Every page but the last is as full as the room allows, and the links ask for no limit the client did not.
    for (const page of pages.slice(0, -1)) expect(JSON.stringify(page).length).toBeGreaterThan(room - 1100);
    for (const link of links) expect(Object.keys(queryOf(link))).toEqual(['cursor']);
  });
});

describe('GET /persons on the jetstream store, with names of 3-byte characters', () => {
  beforeEach(async () => {
    service = await startTestService<PersonServiceSettings>({
      name: 'person-service',
      natsUrl: server.url,
      settings: [storeSetting],
      startups: [registerPersons],
      argv: ['--store', 'jetstream'],
    });
    await ask('delete', '/persons');
  });
  afterEach(() => service.stop());

  it('cuts the pages by bytes, not characters, so that each fits in one reply', async () => {
    // 60 persons of about 3 KB of UTF-8 each (1,000 characters): 180 KB, three times the room.
    const persons = await storePersons(60, 1000, '€');
    const room = measureReplyRoom(MAX_PAYLOAD);
    const { pages } = await readAllPages({});
    expect(pages.length).toBeGreaterThanOrEqual(4);
    expect(pages.flat()).toEqual(persons);
    for (const page of pages) expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(room);
  });
});
