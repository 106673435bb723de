import { connect } from 'nats';
import { storeSetting } from '@restbus/infra';
import {
  ACCEPTED_CONTENT_TYPES,
  REFUSED_CONTENT_TYPES,
  askService,
  createHostileIds,
  createJunkBodies,
  createRequestMessage,
  isStorableId,
  showText,
  startHostileService,
  startNatsServer,
  startTestService,
  type HostileServiceTarget,
} from '@restbus/infra/testing';
import type { RequestMessage, ResponseMessage } from '@restbus/infra';
import type { Person } from '../persons/person';
import { registerPersons, type PersonServiceSettings } from '../register-persons';

const SEED = 20261210;
const LEGIT_REQUESTS = 50;
const KNOWN = 'known-record';
const JSON_TYPE = 'application/json';
let target: HostileServiceTarget;

beforeAll(async () => {
  target = await startHostileService<PersonServiceSettings>({
    name: 'person-service',
    collection: '/persons',
    idParameter: 'personId',
    startups: [registerPersons],
  });
});
afterAll(async () => {
  await target?.stop();
});

describe('person-service under hostile ids, bodies and request messages', () => {
  it('answers every hostile request with 400/404 or an honest success, loses no legitimate request, and keeps every record apart', async () => {
    const run = target.startRun(SEED);
    const { random, findings, note, call } = run;
    const { hostile, legit } = target;
    /** Every record the store should hold at the end, as the service said it stored it. */
    const expected = new Map<string, Person>();

    const one = target.resource;

    // Hostile ids: each one read, written, read back, and every fourth deleted, in order; ids run side by side.
    const ids = createHostileIds(random).filter((id) => id !== KNOWN);
    const idTasks = ids.map((id, index) => async () => {
      const ok = isStorableId(id);
      // No store can hold an empty key; 404 (nothing there) is as true an answer as 400.
      const refused = id === '' ? [400, 404] : [400];
      const what = (step: string): string => `${step} ${showText(id)}`;
      await call(hostile, what('GET'), 'get', one, { id }, ok ? [404] : refused);
      const person = { id, familyName: 'Hostile', givenName: `id-${index}` };
      const put = await call(
        hostile,
        what('PUT'),
        'put',
        one,
        { id, body: JSON.stringify(person), contentType: JSON_TYPE },
        ok ? [200] : [400],
      );
      if (put?.status === 200) expected.set(id, put.body as Person);
      const read = await call(hostile, what('GET after PUT'), 'get', one, { id }, ok ? [200] : refused);
      if (ok && read?.status === 200) {
        const got = read.body as Person;
        if (got.id !== id || got.givenName !== person.givenName)
          note('collisions', `${what('GET')} read back ${showText(got.id)} (${got.givenName})`);
      }
      if (index % 4 === 0) {
        const removed = await call(hostile, what('DELETE'), 'delete', one, { id }, ok ? [204] : refused);
        if (removed?.status === 204) expected.delete(id);
        await call(hostile, what('GET after DELETE'), 'get', one, { id }, ok ? [404] : refused);
      }
    });

    // Hostile bodies: each sent as a PUT of its own id and as a POST.
    const bodyTasks: Array<() => Promise<void>> = [];
    const sendBody = (label: string, body: string, contentType: string | string[] | undefined, accepted: boolean) => {
      const id = `body-${bodyTasks.length}`;
      bodyTasks.push(async () => {
        const put = await call(
          hostile,
          `PUT ${label}`,
          'put',
          one,
          { id, body, contentType },
          accepted ? [200] : [400],
        );
        if (put?.status === 200) expected.set(id, put.body as Person);
      });
      const newBody = body.replace(/"id":"[^"]*",?/, '');
      bodyTasks.push(async () => {
        const post = await call(
          hostile,
          `POST ${label}`,
          'post',
          '/persons',
          { body: newBody, contentType },
          accepted ? [201] : [400],
        );
        if (post?.status === 201) expected.set((post.body as Person).id, post.body as Person);
      });
      return id;
    };
    for (const junk of createJunkBodies(random)) sendBody(junk.label, junk.body, junk.contentType, false);
    const personText = (id: string) => JSON.stringify({ id, familyName: 'Body', givenName: 'Type' });
    for (const type of REFUSED_CONTENT_TYPES) {
      sendBody(`as ${JSON.stringify(type)}`, personText(`body-${bodyTasks.length}`), type, false);
    }
    for (const type of ACCEPTED_CONTENT_TYPES) {
      sendBody(`as ${JSON.stringify(type)}`, personText(`body-${bodyTasks.length}`), type, true);
    }
    const shapes: Array<[string, (id: string) => string, boolean]> = [
      ['a 200 KB familyName', (id) => JSON.stringify({ id, familyName: 'x'.repeat(200_000), givenName: 'g' }), true],
      ['an empty familyName', (id) => JSON.stringify({ id, familyName: '', givenName: 'g' }), true],
      ['a lone surrogate in givenName', (id) => `{"id":"${id}","familyName":"f","givenName":"\\ud800"}`, true],
      ['a NUL in givenName', (id) => `{"id":"${id}","familyName":"f","givenName":"a\\u0000b"}`, true],
      ['duplicate familyName keys', (id) => `{"id":"${id}","familyName":"A","familyName":"B","givenName":"g"}`, true],
      ['a givenName that is a number', (id) => JSON.stringify({ id, familyName: 'f', givenName: 7 }), false],
      ['a givenName that is null', (id) => JSON.stringify({ id, familyName: 'f', givenName: null }), false],
      ['a givenName that is a list', (id) => JSON.stringify({ id, familyName: 'f', givenName: ['g'] }), false],
      ['a givenName that is an object', (id) => JSON.stringify({ id, familyName: 'f', givenName: { g: 1 } }), false],
      [
        'a 1000-deep familyName',
        (id) => `{"id":"${id}","familyName":${'['.repeat(1000)}${']'.repeat(1000)},"givenName":"g"}`,
        false,
      ],
      ['no givenName', (id) => JSON.stringify({ id, familyName: 'f' }), false],
      ['a __proto__ key', (id) => `{"id":"${id}","familyName":"f","givenName":"g","__proto__":{"admin":true}}`, false],
      ['a constructor key', (id) => `{"id":"${id}","familyName":"f","givenName":"g","constructor":{"a":1}}`, false],
      ['an extra key', (id) => JSON.stringify({ id, familyName: 'f', givenName: 'g', admin: true }), false],
      ['the person in a list', (id) => JSON.stringify([{ id, familyName: 'f', givenName: 'g' }]), false],
    ];
    for (const [label, make, accepted] of shapes) {
      sendBody(label, make(`body-${bodyTasks.length}`), JSON_TYPE, accepted);
    }
    // An id in the body that is the path's only to a careless comparison: never stored under either.
    const mismatches: Array<[string, string]> = [
      ['\u00e9', 'e\u0301'],
      ['Body-x', 'body-x'],
      ['body-y', 'body-y '],
      ['body-z', 'body-z\0'],
    ];
    for (const [path, inBody] of mismatches) {
      bodyTasks.push(async () => {
        const body = JSON.stringify({ id: inBody, familyName: 'f', givenName: 'g' });
        await call(
          hostile,
          `PUT ${showText(path)} with id ${showText(inBody)}`,
          'put',
          one,
          {
            id: path,
            body,
            contentType: JSON_TYPE,
          },
          [400],
        );
      });
    }
    // Duplicate id keys: the last one is the id (JSON.parse keeps the last), so only that order is accepted.
    bodyTasks.push(async () => {
      const body = '{"id":"other","id":"body-dup","familyName":"f","givenName":"g"}';
      const put = await call(
        hostile,
        'PUT duplicate id keys',
        'put',
        one,
        { id: 'body-dup', body, contentType: JSON_TYPE },
        [200],
      );
      if (put?.status === 200) expected.set('body-dup', put.body as Person);
    });

    await call(
      legit,
      'legit PUT',
      'put',
      one,
      {
        id: KNOWN,
        body: JSON.stringify({ id: KNOWN, familyName: 'Known', givenName: 'start' }),
        contentType: JSON_TYPE,
      },
      [200],
    );
    const legitFailures: string[] = [];
    const legitRun = (async () => {
      let last: Person | undefined;
      for (let i = 0; i < LEGIT_REQUESTS; i++) {
        const person = { id: KNOWN, familyName: 'Known', givenName: `legit ${i}` };
        const reply =
          i % 2 === 0
            ? await call(
                legit,
                `legit PUT ${i}`,
                'put',
                one,
                {
                  id: KNOWN,
                  body: JSON.stringify(person),
                  contentType: JSON_TYPE,
                },
                [200],
              )
            : await call(legit, `legit GET ${i}`, 'get', one, { id: KNOWN }, [200]);
        if (reply?.status !== 200) legitFailures.push(`${i}: ${reply?.status ?? 'no reply'}`);
        else if (i % 2 === 0) last = person;
        else if ((reply.body as Person).givenName !== last?.givenName)
          legitFailures.push(`${i}: read ${(reply.body as Person).givenName}, not ${last?.givenName}`);
      }
      if (last) expected.set(KNOWN, last);
    })();

    await run.runMixed([...idTasks, ...bodyTasks], KNOWN, legitRun);

    // The store, read back: exactly the records made, each under its own id.
    const listed = await run.checkStore(expected);
    await run.finish(legitFailures);
    expect(findings).toEqual([]);
    expect(listed).toBe(expected.size);
  });

  // The suite above found these; each is its own reproduction, so that a fix can be checked one by one.
  const ask = (subject: string, message: RequestMessage, nc = target.legit): Promise<ResponseMessage> =>
    askService(nc, subject, message);

  it.each([
    ['GET', 'get'],
    ['DELETE', 'delete'],
  ] as const)('answers a %s of an empty personId with 400 or 404, not 500', async (_name, method) => {
    const message = createRequestMessage({
      method,
      uri: '/persons/{personId}',
      parameters: { query: {}, uri: { personId: '' } },
    });
    const reply = await ask(`easer.${method}_/persons/{personId}`, message);
    expect([400, 404]).toContain(reply.status);
  });

  it('answers a request message without the personId path parameter with 400, not 500', async () => {
    const message = createRequestMessage({ method: 'get', uri: '/persons/{personId}' });
    expect(await ask('easer.get_/persons/{personId}', message)).toMatchObject({
      status: 400,
      body: { error: expect.any(String) },
    });
  });

  it('pages GET /persons so that every page fits the NATS max payload, its Link leading through all the persons', async () => {
    const small = await startNatsServer({ maxPayload: 64 * 1024 });
    const nc = await connect({ servers: small.url });
    const crowded = await startTestService<PersonServiceSettings>({
      name: 'person-service',
      natsUrl: small.url,
      settings: [storeSetting],
      startups: [registerPersons],
      argv: ['--store', 'jetstream'],
    });
    try {
      // Each person fits in a message on its own; the three together do not.
      for (const id of ['big-1', 'big-2', 'big-3']) {
        const person = { id, familyName: 'x'.repeat(30_000), givenName: 'g' };
        const put = createRequestMessage({
          method: 'put',
          uri: '/persons/{personId}',
          headers: { 'content-type': JSON_TYPE },
          body: JSON.stringify(person),
          parameters: { query: {}, uri: { personId: id } },
        });
        expect(await ask('easer.put_/persons/{personId}', put, nc)).toMatchObject({ status: 200 });
      }
      const seen: string[] = [];
      let query: Record<string, string> = {};
      for (let page = 0; page < 5; page++) {
        const reply = await ask(
          'easer.get_/persons',
          createRequestMessage({ method: 'get', uri: '/persons', parameters: { query, uri: {} } }),
          nc,
        );
        expect(reply).toMatchObject({ status: 200 });
        seen.push(...(reply.body as Array<{ id: string }>).map((person) => person.id));
        const link = reply.headers?.link as string | undefined;
        if (!link) break;
        const next = /^<\?([^>]*)>; rel="next"$/.exec(link);
        expect(next).not.toBeNull();
        query = Object.fromEntries(new URLSearchParams(next![1]));
      }
      expect(seen).toEqual(['big-1', 'big-2', 'big-3']);
    } finally {
      await crowded.stop();
      await nc.close();
      await small.dispose();
    }
  });
});
