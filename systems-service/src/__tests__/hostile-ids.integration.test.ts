import type { RequestMessage, ResponseMessage } from '@restbus/infra';
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
  type HostileServiceTarget,
} from '@restbus/infra/testing';
import type { System } from '../systems/system';
import { registerSystems, type SystemsServiceSettings } from '../systems/register-systems';

const SEED = 20261211;
const LEGIT_REQUESTS = 50;
const KNOWN = 'known-system';
const JSON_TYPE = 'application/json';
let target: HostileServiceTarget;

beforeAll(async () => {
  target = await startHostileService<SystemsServiceSettings>({
    name: 'systems-service',
    collection: '/systems',
    idParameter: 'systemId',
    startups: [registerSystems],
  });
});
afterAll(async () => {
  await target?.stop();
});

describe('systems-service under hostile ids, bodies and request messages', () => {
  it('answers every hostile request with 400/404/409 or an honest success, loses no legitimate request, and keeps every system apart', async () => {
    const run = target.startRun(SEED);
    const { random, findings, note, call } = run;
    const { hostile, legit } = target;
    /** Every system the store should hold at the end, as the service said it stored it. */
    const expected = new Map<string, System>();

    const one = target.resource;
    const post = (what: string, body: string, contentType: string | string[] | undefined, allowed: number[]) =>
      call(hostile, what, 'post', '/systems', { body, contentType }, allowed);
    const keep = (reply: ResponseMessage | undefined, what: string): void => {
      if (reply?.status !== 201) return;
      const system = reply.body as System;
      const location = `/systems/${encodeURIComponent(system.id)}`;
      if (reply.headers?.location !== location)
        note('wrongAnswers', `${what}: Location ${String(reply.headers?.location)}, not ${location}`);
      if (expected.has(system.id)) note('collisions', `${what}: 201 for ${showText(system.id)}, which was taken`);
      expected.set(system.id, system);
    };

    // Hostile ids: each one read, created in the body of a POST, created again, and read back, in order; ids run
    // side by side, so that two ids a lossy key would merge race each other.
    const ids = createHostileIds(random).filter((id) => id !== KNOWN);
    const idTasks = ids.map((id, index) => async () => {
      const ok = isStorableId(id);
      // No store can hold an empty key; 404 (nothing there) is as true an answer as 400.
      const refused = id === '' ? [400, 404] : [400];
      const what = (step: string): string => `${step} ${showText(id)}`;
      await call(hostile, what('GET'), 'get', one, { id }, ok ? [404] : refused);
      const system = { name: `id-${index}`, id };
      keep(await post(what('POST'), JSON.stringify(system), JSON_TYPE, ok ? [201] : [400]), what('POST'));
      const again = await post(what('POST again'), JSON.stringify({ ...system, name: 'again' }), JSON_TYPE, [
        ok ? 409 : 400,
      ]);
      if (again?.status === 409 && again.headers?.location !== `/systems/${encodeURIComponent(id)}`)
        note('wrongAnswers', `${what('POST again')}: 409 with Location ${String(again.headers?.location)}`);
      const read = await call(hostile, what('GET after POST'), 'get', one, { id }, ok ? [200] : refused);
      if (ok && read?.status === 200) {
        const got = read.body as System;
        if (got.id !== id || got.name !== system.name)
          note('collisions', `${what('GET')} read back ${showText(got.id)} (${got.name})`);
      }
    });

    // Hostile bodies, each POSTed once.
    const bodyTasks: Array<() => Promise<void>> = [];
    const sendBody = (label: string, body: string, contentType: string | string[] | undefined, allowed: number[]) =>
      bodyTasks.push(async () => keep(await post(`POST ${label}`, body, contentType, allowed), `POST ${label}`));
    for (const junk of createJunkBodies(random)) sendBody(junk.label, junk.body, junk.contentType, [400]);
    const systemText = () => JSON.stringify({ id: `body-${bodyTasks.length}`, name: 'typed' });
    for (const type of REFUSED_CONTENT_TYPES) sendBody(`as ${JSON.stringify(type)}`, systemText(), type, [400]);
    for (const type of ACCEPTED_CONTENT_TYPES) sendBody(`as ${JSON.stringify(type)}`, systemText(), type, [201]);
    const deep = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const shapes: Array<[string, (id: string) => string, number[]]> = [
      ['a 200 KB name', (id) => JSON.stringify({ id, name: 'x'.repeat(200_000) }), [201]],
      ['an empty name', (id) => JSON.stringify({ id, name: '' }), [201]],
      ['no id', () => JSON.stringify({ name: 'no id' }), [201]],
      ['a lone surrogate in the name', (id) => `{"id":"${id}","name":"\\ud800"}`, [201]],
      ['a NUL in the name', (id) => `{"id":"${id}","name":"a\\u0000b"}`, [201]],
      ['duplicate name keys', (id) => `{"id":"${id}","name":"A","name":"B"}`, [201]],
      ['duplicate id keys', (id) => `{"id":"other-${id}","id":"${id}","name":"n"}`, [201]],
      ['a __proto__ key', (id) => `{"id":"${id}","name":"n","__proto__":{"id":"evil","admin":true}}`, [201]],
      ['only __proto__ with a name', () => '{"__proto__":{"name":"n","id":"evil"}}', [400]],
      ['a constructor key', (id) => `{"id":"${id}","name":"n","constructor":{"prototype":{"admin":true}}}`, [201]],
      [
        '10000 properties',
        (id) =>
          JSON.stringify({
            id,
            name: 'n',
            ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, i])),
          }),
        [201],
      ],
      ['a 60-deep property', (id) => `{"id":"${id}","name":"n","deep":${deep(60)}}`, [201]],
      // Bodies nest at most 64 levels (MAX_JSON_DEPTH): checked on the text, before parsing.
      ['a 1000-deep property', (id) => `{"id":"${id}","name":"n","deep":${deep(1000)}}`, [400]],
      // Too deep for JSON.stringify (about 4000 levels in Node 20): no store can keep it, so the client is told.
      ['a 10000-deep property', (id) => `{"id":"${id}","name":"n","deep":${deep(10_000)}}`, [400, 413]],
      ['a name that is a number', (id) => JSON.stringify({ id, name: 7 }), [400]],
      ['a name that is null', (id) => JSON.stringify({ id, name: null }), [400]],
      ['a name that is a list', (id) => JSON.stringify({ id, name: ['n'] }), [400]],
      ['a name that is an object', (id) => JSON.stringify({ id, name: { n: 1 } }), [400]],
      ['an id that is a number', () => JSON.stringify({ id: 7, name: 'n' }), [400]],
      ['an id that is null', () => JSON.stringify({ id: null, name: 'n' }), [400]],
      ['an id that is a list', () => JSON.stringify({ id: ['a'], name: 'n' }), [400]],
      ['an empty id', () => JSON.stringify({ id: '', name: 'n' }), [400]],
      ['an escaped lone surrogate id', () => '{"id":"\\udfff","name":"n"}', [400]],
      ['a 513-byte id', () => JSON.stringify({ id: 'b'.repeat(513), name: 'n' }), [400]],
      ['no name', (id) => JSON.stringify({ id }), [400]],
      ['the system in a list', (id) => JSON.stringify([{ id, name: 'n' }]), [400]],
    ];
    for (const [label, make, allowed] of shapes) sendBody(label, make(`body-${bodyTasks.length}`), JSON_TYPE, allowed);

    const knownReply = await call(
      legit,
      'legit POST',
      'post',
      '/systems',
      { body: JSON.stringify({ id: KNOWN, name: 'known' }), contentType: JSON_TYPE },
      [201],
    );
    if (knownReply?.status === 201) expected.set(KNOWN, knownReply.body as System);
    const legitFailures: string[] = [];
    const legitRun = (async () => {
      for (let i = 0; i < LEGIT_REQUESTS; i++) {
        if (i % 2 === 0) {
          const system = { id: `legit-${i}`, name: `legit ${i}` };
          const reply = await call(
            legit,
            `legit POST ${i}`,
            'post',
            '/systems',
            {
              body: JSON.stringify(system),
              contentType: JSON_TYPE,
            },
            [201],
          );
          if (reply?.status === 201) expected.set(system.id, reply.body as System);
          else legitFailures.push(`POST ${i}: ${reply?.status ?? 'no reply'}`);
        } else {
          const reply = await call(legit, `legit GET ${i}`, 'get', one, { id: KNOWN }, [200]);
          if (reply?.status !== 200 || (reply.body as System).name !== 'known')
            legitFailures.push(`GET ${i}: ${reply?.status ?? 'no reply'}`);
        }
      }
    })();

    await run.runMixed([...idTasks, ...bodyTasks], KNOWN, legitRun);

    // The store, read back: exactly the systems made, each under its own id.
    const listed = await run.checkStore(expected);
    await run.finish(legitFailures);
    expect(findings).toEqual([]);
    expect(listed).toBe(expected.size);
  });

  // The suite above found these; each is its own reproduction, so that a fix can be checked one by one.
  const ask = (subject: string, message: RequestMessage): Promise<ResponseMessage> =>
    askService(target.legit, subject, message);

  it('answers getSystem of an empty systemId with 400 or 404, not 500', async () => {
    const message = createRequestMessage({
      method: 'get',
      uri: '/systems/{systemId}',
      parameters: { query: {}, uri: { systemId: '' } },
    });
    expect([400, 404]).toContain((await ask('easer.get_/systems/{systemId}', message)).status);
  });

  it('answers a request message without the systemId path parameter with 400, not 500', async () => {
    const message = createRequestMessage({ method: 'get', uri: '/systems/{systemId}' });
    expect(await ask('easer.get_/systems/{systemId}', message)).toMatchObject({
      status: 400,
      body: { error: expect.any(String) },
    });
  });

  it('answers postSystems with 400 or 413, not 500, for a system nested deeper than it can store, and stores nothing', async () => {
    const depth = 10_000;
    const message = createRequestMessage({
      method: 'post',
      uri: '/systems',
      headers: { 'content-type': JSON_TYPE },
      body: `{"id":"too-deep","name":"n","deep":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    });
    expect([400, 413]).toContain((await ask('easer.post_/systems', message)).status);
    const read = createRequestMessage({
      method: 'get',
      uri: '/systems/{systemId}',
      parameters: { query: {}, uri: { systemId: 'too-deep' } },
    });
    expect(await ask('easer.get_/systems/{systemId}', read)).toMatchObject({ status: 404 });
  });
});
