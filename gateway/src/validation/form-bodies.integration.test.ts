import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { connect, headers as natsHeaders, type NatsConnection } from 'nats';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';

// The program as users run it: build it first (`npx tsc -b gateway`).
const MAIN = resolve(__dirname, '../../dist/main.js');

/**
 * A pet as an HTML form sends it: a required name, an integer age, a list of tags and a list of integer ids (one
 * field each), a birth date, a list of colours written as one field (`colors=black,white`) and a nickname.
 */
const petForm = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    age: { type: 'integer', minimum: 0 },
    vaccinated: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    ids: { type: 'array', items: { type: 'integer' } },
    born: { type: 'string', format: 'date' },
    colors: { type: 'array', items: { type: 'string', enum: ['black', 'white', 'brown'] } },
    nickname: { type: 'string' },
  },
  required: ['name'],
};
const petEncoding = { colors: { style: 'form', explode: false } };
const made = { type: 'object', properties: { id: { type: 'integer', default: 1 } } };

/**
 * A photo as a multipart form sends it: a required title, an integer width, the file itself (a PNG, in 3.x) and,
 * in 3.x, where it was taken as a JSON part.
 */
const photoForm = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    width: { type: 'integer', minimum: 1 },
    photo: { type: 'string', format: 'binary' },
    place: { type: 'object', properties: { lat: { type: 'number', maximum: 90 } }, required: ['lat'] },
  },
  required: ['title', 'photo'],
};
const photoEncoding = { photo: { contentType: 'image/png' } };

const swagger2 = {
  swagger: '2.0',
  info: { title: 'pets', version: '1' },
  paths: {
    '/pets': {
      post: {
        consumes: ['application/x-www-form-urlencoded'],
        produces: ['application/json'],
        parameters: [
          { name: 'name', in: 'formData', type: 'string', minLength: 1, required: true },
          { name: 'age', in: 'formData', type: 'integer', minimum: 0 },
          { name: 'vaccinated', in: 'formData', type: 'boolean' },
          { name: 'tags', in: 'formData', type: 'array', items: { type: 'string' }, collectionFormat: 'multi' },
          { name: 'ids', in: 'formData', type: 'array', items: { type: 'integer' }, collectionFormat: 'multi' },
          { name: 'born', in: 'formData', type: 'string', format: 'date' },
          // csv, 2.0's default collectionFormat: one field, its items cut at commas.
          {
            name: 'colors',
            in: 'formData',
            type: 'array',
            items: { type: 'string', enum: ['black', 'white', 'brown'] },
          },
          { name: 'nickname', in: 'formData', type: 'string', allowEmptyValue: true },
          // Where the form came from (an empty value only with allowEmptyValue, as a formData field).
          { name: 'source', in: 'query', type: 'string' },
          { name: 'ref', in: 'query', type: 'string', allowEmptyValue: true },
        ],
        responses: { '201': { description: 'made', schema: made } },
      },
    },
    '/photos': {
      post: {
        consumes: ['multipart/form-data'],
        produces: ['application/json'],
        parameters: [
          { name: 'title', in: 'formData', type: 'string', required: true },
          { name: 'width', in: 'formData', type: 'integer', minimum: 1 },
          { name: 'photo', in: 'formData', type: 'file', required: true },
        ],
        responses: { '201': { description: 'made', schema: made } },
      },
    },
  },
};

const openapi3 = (version: string) => ({
  openapi: version,
  info: { title: 'pets', version: '1' },
  paths: {
    '/pets': {
      post: {
        // 3.x's allowEmptyValue (deprecated) is not read: an empty value is its schema's to judge, as in Prism.
        parameters: [
          { name: 'source', in: 'query', schema: { type: 'string' } },
          { name: 'ref', in: 'query', schema: { type: 'string' }, allowEmptyValue: true },
        ],
        requestBody: {
          required: true,
          content: { 'application/x-www-form-urlencoded': { schema: petForm, encoding: petEncoding } },
        },
        responses: { '201': { description: 'made', content: { 'application/json': { schema: made } } } },
      },
    },
    '/photos': {
      post: {
        requestBody: {
          required: true,
          content: { 'multipart/form-data': { schema: photoForm, encoding: photoEncoding } },
        },
        responses: { '201': { description: 'made', content: { 'application/json': { schema: made } } } },
      },
    },
  },
});

const documents: Array<[string, string, unknown]> = [
  ['OpenAPI 2.0', 'pets20.json', swagger2],
  ['OpenAPI 3.0', 'pets30.json', openapi3('3.0.3')],
  ['OpenAPI 3.1', 'pets31.json', openapi3('3.1.0')],
];

let dir: string;
let nats: TestNatsServer;
let service: NatsConnection;
/** The form bodies the service was sent, in order. */
const received: string[] = [];

/** A plain NATS responder on POST /pets' and POST /photos' subjects: it keeps the body it was sent and answers 201. */
async function startPetService(url: string): Promise<NatsConnection> {
  const nc = await connect({ servers: url });
  const answer = (subject: string) =>
    nc.subscribe(subject, {
      callback: (_err, msg) => {
        const message = JSON.parse(new TextDecoder().decode(msg.data)) as { request: { body: string } };
        received.push(message.request.body);
        const head = natsHeaders();
        head.set(
          'Restbus-Reply-Head',
          JSON.stringify({ status: 201, headers: { 'content-type': 'application/json' } }),
        );
        msg.respond(new TextEncoder().encode(JSON.stringify({ id: 9 })), { headers: head });
      },
    });
  answer('easer.post_/pets');
  answer('easer.post_/photos');
  await nc.flush();
  return nc;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-form-bodies-'));
  nats = await startNatsServer();
  service = await startPetService(nats.url);
});
afterAll(async () => {
  await service?.close();
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** Starts `restbus-gateway -r <file> --validate -p 0 <mode>`; resolves with its URL once it listens (and, -u, is connected). */
async function startGateway(file: string, mode: string[]): Promise<{ url: string; child: ChildProcess }> {
  const args = [MAIN, '-r', file, ...mode, '--validate', '-p', '0', '--log-format', 'json'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let url: string | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg === 'gateway listening') {
      url = `http://127.0.0.1:${entry.port}`;
      break;
    }
  }
  if (!url) throw new Error(`the gateway (${MAIN}) stopped before it listened: build it with npx tsc -b gateway`);
  if (mode.includes('-u')) {
    for (let tries = 0; ; tries++) {
      const ready = (await (await fetch(`${url}/-/ready`)).json()) as { nats?: string };
      if (ready.nats === 'connected') break;
      if (tries === 100) throw new Error('the gateway did not connect to NATS within 5 s');
      await new Promise((done) => setTimeout(done, 50));
    }
  }
  return { url, child };
}

const modes: Array<[string, () => string[]]> = [
  ['-m', () => ['-m']],
  ['-u', () => ['-u', '-n', nats.url]],
];

describe.each(documents)('restbus-gateway --validate on a form body, %s', (name, file, document) => {
  const isSwagger2 = name === 'OpenAPI 2.0';
  describe.each(modes)('in %s mode', (mode, args) => {
    let gateway: { url: string; child: ChildProcess };
    beforeAll(async () => {
      await writeFile(join(dir, file), JSON.stringify(document));
      gateway = await startGateway(join(dir, file), args());
    });
    afterAll(() => gateway?.child.kill('SIGTERM'));
    beforeEach(() => {
      received.length = 0;
    });

    const post = async (form: string, query = '') => {
      const response = await fetch(`${gateway.url}/pets${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const refusal = (...problems: Array<{ location: string; message: string }>) => ({
      status: 400,
      body: {
        error: 'the request does not match the API description',
        code: 'REQUEST_INVALID',
        problems: expect.arrayContaining(problems.map((problem) => expect.objectContaining(problem))),
      },
    });

    it('lets a form whose fields match their schemas through, text read as the numbers, booleans and lists asked for', async () => {
      const form = 'name=Rex&age=3&vaccinated=true&tags=small&ids=1&ids=2';
      expect(await post(form)).toEqual({ status: 201, body: { id: mode === '-m' ? 1 : 9 } });
      // The service gets the form as the client sent it: the check coerces a copy.
      if (mode === '-u') expect(received).toEqual([form]);
    });

    it('refuses a field that is not of its type with 400 REQUEST_INVALID naming the field', async () => {
      expect(await post('name=Rex&age=three')).toEqual(refusal({ location: 'body/age', message: 'must be integer' }));
      expect(await post('name=Rex&vaccinated=maybe')).toEqual(
        refusal({ location: 'body/vaccinated', message: 'must be boolean' }),
      );
      expect(received).toEqual([]);
    });

    it('refuses a list item that is not of its type, naming the item', async () => {
      expect(await post('name=Rex&ids=1&ids=x')).toEqual(
        refusal({ location: 'body/ids/1', message: 'must be integer' }),
      );
      expect(received).toEqual([]);
    });

    it('refuses a form without a required field, naming the field', async () => {
      expect(await post('age=3')).toEqual(refusal({ location: 'body', message: "must have required property 'name'" }));
      expect(received).toEqual([]);
    });

    it('refuses a field that breaks its schema’s bounds', async () => {
      expect(await post('name=&age=-1')).toEqual(
        refusal(
          { location: 'body/name', message: 'must NOT have fewer than 1 characters' },
          { location: 'body/age', message: 'must be >= 0' },
        ),
      );
      expect(received).toEqual([]);
    });

    it('refuses a field that breaks its format, and takes one that keeps it', async () => {
      expect(await post('name=Rex&born=2020-02-29')).toMatchObject({ status: 201 });
      expect(await post('name=Rex&born=2021-02-29')).toEqual(
        refusal({ location: 'body/born', message: 'must match format "date"' }),
      );
      if (mode === '-u') expect(received).toEqual(['name=Rex&born=2020-02-29']);
    });

    it("reads a list written as one field (explode: false, 2.0's csv) as its items, each checked", async () => {
      expect(await post('name=Rex&colors=black,white')).toMatchObject({ status: 201 });
      expect(await post('name=Rex&colors=black,green')).toEqual(
        refusal({ location: 'body/colors/1', message: 'must be equal to one of the allowed values' }),
      );
    });

    it(
      isSwagger2
        ? 'refuses an empty field unless its formData parameter allows empty values'
        : 'lets an empty field through when its schema takes an empty string (3.x has no allowEmptyValue in forms)',
      async () => {
        expect(await post('name=Rex&nickname=')).toMatchObject({ status: 201 });
        expect(await post('name=Rex&born=')).toEqual(
          isSwagger2
            ? refusal({ location: 'body/born', message: 'must not be empty' })
            : refusal({ location: 'body/born', message: 'must match format "date"' }),
        );
      },
    );

    it(
      isSwagger2
        ? 'refuses an empty query value unless its parameter allows empty values, as it refuses an empty field'
        : 'lets an empty query value through when its schema takes an empty string (3.x allowEmptyValue is not read)',
      async () => {
        expect(await post('name=Rex', '?source=web&ref=')).toMatchObject({ status: 201 });
        const empty = await post('name=Rex', '?source=');
        if (isSwagger2) expect(empty).toEqual(refusal({ location: 'query.source', message: 'must not be empty' }));
        else expect(empty).toMatchObject({ status: 201 });
        if (mode === '-u') expect(received).toEqual(isSwagger2 ? ['name=Rex'] : ['name=Rex', 'name=Rex']);
      },
    );

    const postPhoto = async (fields: Record<string, string | Blob>) => {
      const data = new FormData();
      for (const [name, value] of Object.entries(fields)) {
        if (typeof value === 'string') data.append(name, value);
        else data.append(name, value, 'rex.png');
      }
      const response = await fetch(`${gateway.url}/photos`, { method: 'POST', body: data });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    // Bytes that are no UTF-8: the body travels as base64 and is read back byte for byte.
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00])], { type: 'image/png' });

    it('lets a multipart form through whose fields match their schemas, its file part included', async () => {
      expect(await postPhoto({ title: 'Rex', width: '640', photo: png })).toEqual({
        status: 201,
        body: { id: mode === '-m' ? 1 : 9 },
      });
      if (mode === '-u') expect(received).toHaveLength(1);
    });

    it('refuses a multipart field that is not of its type, naming the field', async () => {
      expect(await postPhoto({ title: 'Rex', width: 'wide', photo: png })).toEqual(
        refusal({ location: 'body/width', message: 'must be integer' }),
      );
      expect(received).toEqual([]);
    });

    it('refuses a multipart form without a required part, naming the part', async () => {
      expect(await postPhoto({ title: 'Rex', width: '640' })).toEqual(
        refusal({ location: 'body', message: "must have required property 'photo'" }),
      );
      expect(received).toEqual([]);
    });

    // Swagger 2 has no object fields and no part types: these two rules are 3.x's.
    if (!isSwagger2) {
      it('checks a JSON part (an object’s) as JSON, not as text', async () => {
        const place = (json: string) => new Blob([json], { type: 'application/json' });
        expect(await postPhoto({ title: 'Rex', photo: png, place: place('{"lat":52.5}') })).toMatchObject({
          status: 201,
        });
        expect(await postPhoto({ title: 'Rex', photo: png, place: place('{"lat":"52.5"}') })).toEqual(
          refusal({ location: 'body/place/lat', message: 'must be number' }),
        );
        expect(await postPhoto({ title: 'Rex', photo: png, place: place('{"lat":') })).toEqual(
          refusal({ location: 'body/place', message: 'is not valid JSON' }),
        );
        expect(received).toHaveLength(mode === '-u' ? 1 : 0);
      });

      it('refuses a file part whose Content-Type its encoding does not allow', async () => {
        const gif = new Blob([new Uint8Array([0x47, 0x49, 0x46])], { type: 'image/gif' });
        expect(await postPhoto({ title: 'Rex', photo: gif })).toEqual(
          refusal({ location: 'body/photo', message: 'must be sent as image/png, not image/gif' }),
        );
        expect(received).toEqual([]);
      });
    }

    it('refuses a multipart body that cannot be read as one', async () => {
      const response = await fetch(`${gateway.url}/photos`, {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
        body: 'no parts here',
      });
      expect({ status: response.status, body: await response.json() }).toEqual(
        refusal({ location: 'body', message: 'is not multipart/form-data' }),
      );
      expect(received).toEqual([]);
    });
  });
});
