import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startMockProcess, useTempDir, type MockProcess } from './__tests__/start-mock-process';

/**
 * One API in each dialect whose examples are written in types other than JSON: `/pets` has an object example for
 * JSON and XML (its schema names the element `pet`) and a string for plain text; `/page` an object for HTML only;
 * `/download` an object for `application/octet-stream`; `/feed` an XML text; `/odd` an object whose keys are no XML
 * element names.
 */
const rex = { id: 7, name: 'Rex' };
const petSchema = {
  type: 'object',
  xml: { name: 'pet' },
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
};
const feed = '<feed><entry>Rex</entry></feed>';
const odd = { 'two words': 1 };

/** Swagger 2: one schema per response, examples by media type, the types in `produces`. */
const swagger2 = {
  swagger: '2.0',
  info: { title: 'pets', version: '1' },
  definitions: { Pet: petSchema },
  paths: {
    '/pets': {
      get: {
        produces: ['application/json', 'application/xml', 'text/plain'],
        responses: {
          '200': {
            description: 'pets',
            schema: { $ref: '#/definitions/Pet' },
            examples: { 'application/json': rex, 'application/xml': rex, 'text/plain': 'Rex, 7' },
          },
        },
      },
    },
    '/page': {
      get: {
        produces: ['text/html'],
        responses: { '200': { description: 'page', examples: { 'text/html': { title: 'Rex' } } } },
      },
    },
    '/download': {
      get: {
        produces: ['application/octet-stream'],
        responses: { '200': { description: 'file', examples: { 'application/octet-stream': rex } } },
      },
    },
    '/feed': {
      get: {
        produces: ['application/atom+xml'],
        responses: { '200': { description: 'feed', examples: { 'application/atom+xml': feed } } },
      },
    },
    '/odd': {
      get: {
        produces: ['application/xml'],
        responses: { '200': { description: 'odd', examples: { 'application/xml': odd } } },
      },
    },
  },
};

const ok = (content: Record<string, unknown>) => ({ responses: { '200': { description: 'ok', content } } });

const openapi3 = (version: string) => ({
  openapi: version,
  info: { title: 'pets', version: '1' },
  components: { schemas: { Pet: petSchema } },
  paths: {
    '/pets': {
      get: ok({
        'application/json': { schema: { $ref: '#/components/schemas/Pet' }, example: rex },
        'application/xml': { schema: { $ref: '#/components/schemas/Pet' }, example: rex },
        'text/plain': { schema: { type: 'string' }, example: 'Rex, 7' },
      }),
    },
    '/page': { get: ok({ 'text/html': { example: { title: 'Rex' } } }) },
    '/download': { get: ok({ 'application/octet-stream': { example: rex } }) },
    '/feed': { get: ok({ 'application/atom+xml': { example: feed } }) },
    '/odd': { get: ok({ 'application/xml': { example: odd } }) },
  },
});

const documents: Array<[string, string, unknown]> = [
  ['OpenAPI 2.0', 'serialise20.json', swagger2],
  ['OpenAPI 3.0', 'serialise30.json', openapi3('3.0.3')],
  ['OpenAPI 3.1', 'serialise31.json', openapi3('3.1.0')],
];

const dir = useTempDir('restbus-mock-serialise-');

/** Status, content type and body text of an answer. */
const read = async (response: Response) => [
  response.status,
  response.headers.get('content-type'),
  await response.text(),
];

describe.each(documents)('restbus-gateway -m on %s', (_name, file, document) => {
  let mock: MockProcess;
  const get = (path: string, accept: string) => fetch(`${mock.url}${path}`, { headers: { accept } });
  beforeAll(async () => {
    await writeFile(join(dir.path, file), JSON.stringify(document));
    mock = await startMockProcess(join(dir.path, file));
  });
  afterAll(() => mock?.child.kill('SIGTERM'));

  it('sends an object example asked for as XML as an XML document whose root element the schema names', async () => {
    const expected = '<pet>\n  <id>7</id>\n  <name>Rex</name>\n</pet>\n';
    expect(await read(await get('/pets', 'application/xml'))).toEqual([200, 'application/xml', expected]);
    // Kept answers are the same answers.
    expect(await read(await get('/pets', 'application/xml'))).toEqual([200, 'application/xml', expected]);
    expect(await read(await get('/pets', 'text/xml, application/xml'))).toEqual([200, 'application/xml', expected]);
  });

  it('sends a string example as it is under plain text and under an XML type', async () => {
    expect(await read(await get('/pets', 'text/plain'))).toEqual([200, 'text/plain; charset=utf-8', 'Rex, 7']);
    expect(await read(await get('/feed', 'application/atom+xml'))).toEqual([200, 'application/atom+xml', feed]);
  });

  it('answers an error in JSON, never a JSON body under the type, for an object asked for as HTML or as bytes', async () => {
    for (const [path, type] of [
      ['/page', 'text/html'],
      ['/download', 'application/octet-stream'],
    ]) {
      const [status, contentType, text] = await read(await get(path, type));
      expect([status, contentType]).toEqual([406, 'application/json; charset=utf-8']);
      expect(JSON.parse(text as string)).toEqual({
        code: 'NOT_ACCEPTABLE',
        error: `GET ${path} declares ${type} but has no example written in it; give the response one`,
      });
    }
  });

  it('answers an error, never a broken XML document, for an object whose keys are no XML element names', async () => {
    const [status, contentType, text] = await read(await get('/odd', 'application/xml'));
    expect([status, contentType]).toEqual([406, 'application/json; charset=utf-8']);
    expect(JSON.parse(text as string)).toMatchObject({ code: 'NOT_ACCEPTABLE' });
  });
});
