import { isRestbusError, type ResponseMessage } from '@restbus/infra';
import { startTestGateway, testEndpoint } from '../__tests__/start-test-gateway';
import type { ApiEndpoint } from '../openapi/endpoint';
import { buildMockResponse } from './build-mock-response';
import { findMockWarnings } from './find-mock-warnings';
import { readPrefer } from './read-prefer';

const ok = (content: Record<string, unknown>) => ({ '200': { description: 'ok', content } });
const pet = { id: 7, name: 'Rex' };

/** The content type and body -m answers with, or the code and message of its refusal. */
function ask(endpoint: ApiEndpoint, accept?: string, prefer?: string): string {
  let built: ResponseMessage;
  try {
    built = buildMockResponse(endpoint, accept, readPrefer(prefer));
  } catch (err) {
    if (!isRestbusError(err)) throw err;
    return `${err.status} ${err.code}: ${err.message}`;
  }
  return `${built.status} ${String(built.headers?.['content-type'])} ${String(built.body)}`;
}

const jsonAndHtml = testEndpoint('get', '/pets', {
  responses: ok({ 'application/json': { example: pet }, 'text/html': { example: pet } }),
});

describe('-m sends a body only in a type it is written in', () => {
  it('answers 406 naming the types it can give when the HTML asked for has only an object for an example', () => {
    expect(ask(jsonAndHtml, 'text/html')).toBe(
      '406 NOT_ACCEPTABLE: GET /pets answers application/json (text/html: declared, with no example written in it); the request accepts none of them',
    );
  });

  it('answers in the next type the request accepts when the one it prefers has no example written in it', () => {
    expect(ask(jsonAndHtml, 'text/html, application/json;q=0.5')).toBe('200 application/json {"id":7,"name":"Rex"}');
    expect(ask(jsonAndHtml, 'text/html, */*;q=0.1')).toBe('200 application/json {"id":7,"name":"Rex"}');
  });

  it('writes an object example of an XML media type as an XML document, and a string one as it is', () => {
    const endpoint = testEndpoint('get', '/pets', {
      responses: ok({
        'application/xml': {
          examples: { object: { value: pet }, document: { value: '<pet><id>7</id></pet>' } },
        },
      }),
    });
    // Without a schema to name it, the root element is `root`.
    expect(ask(endpoint, 'application/xml')).toBe(
      '200 application/xml <root>\n  <id>7</id>\n  <name>Rex</name>\n</root>\n',
    );
    expect(ask(endpoint, 'application/xml', 'example=document')).toBe('200 application/xml <pet><id>7</id></pet>');
  });

  it('builds an XML document from the schema when an XML media type has no example', () => {
    const endpoint = testEndpoint('get', '/pets', {
      responses: ok({
        'application/xml': {
          schema: {
            type: 'object',
            xml: { name: 'pet' },
            properties: { id: { type: 'integer', example: 7 }, name: { type: 'string', example: 'Rex' } },
          },
        },
      }),
    });
    expect(ask(endpoint, 'application/xml')).toBe(
      '200 application/xml <pet>\n  <id>7</id>\n  <name>Rex</name>\n</pet>\n',
    );
  });

  it('sends a string example as text, a number as plain text, and refuses an object as HTML or plain text', () => {
    const endpoint = testEndpoint('get', '/page', {
      responses: ok({ 'text/html': { example: { title: 'x' } }, 'text/plain': { example: 42 } }),
    });
    expect(ask(endpoint, 'text/plain')).toBe('200 text/plain 42');
    expect(ask(endpoint, 'text/html')).toBe(
      '406 NOT_ACCEPTABLE: GET /page answers text/plain (text/html: declared, with no example written in it); the request accepts none of them',
    );
    expect(ask(endpoint)).toBe('200 text/plain 42');
  });

  it('says the document has no example written in any of its types when it has none', () => {
    const endpoint = testEndpoint('get', '/only-html', { responses: ok({ 'text/html': { example: pet } }) });
    expect(ask(endpoint)).toBe(
      '406 NOT_ACCEPTABLE: GET /only-html declares text/html but has no example written in it; give the response one',
    );
  });

  it('sends a body under a declared range in the type it is written in, never as the range', () => {
    const endpoint = testEndpoint('get', '/any', { responses: ok({ '*/*': { example: pet } }) });
    expect(ask(endpoint)).toBe('200 application/json {"id":7,"name":"Rex"}');
    const text = testEndpoint('get', '/any', { responses: ok({ '*/*': { example: 'hello' } }) });
    expect(ask(text)).toBe('200 text/plain hello');
  });

  it('builds a Swagger 2 XML answer from the schema when its examples hold only JSON', () => {
    const endpoint = testEndpoint(
      'get',
      '/pets',
      {
        produces: ['application/json', 'application/xml'],
        responses: {
          '200': {
            description: 'ok',
            schema: { type: 'object', xml: { name: 'pet' }, properties: { id: { type: 'integer', example: 7 } } },
            examples: { 'application/json': pet },
          },
        },
      },
      { swagger: '2.0' },
    );
    expect(ask(endpoint, 'application/xml')).toBe('200 application/xml <pet>\n  <id>7</id>\n</pet>\n');
    expect(ask(endpoint)).toBe('200 application/json {"id":7,"name":"Rex"}');
  });
});

describe('the warnings of -m at load', () => {
  it('name each media type with no example written in it, and no other', async () => {
    const text = testEndpoint('get', '/text', { responses: ok({ 'text/plain': { example: 'fine' } }) });
    const xml = testEndpoint('get', '/xml', {
      responses: ok({ 'application/xml': { example: pet }, 'text/xml': { example: { 'two words': 1 } } }),
    });
    const warnings = await findMockWarnings([jsonAndHtml, text, xml]);
    expect(warnings.map(({ path, message }) => `${path}: ${message}`)).toEqual([
      'paths./pets.get.responses.200.content.text/html: -m has no example written in text/html (an object is no text/html): a call that accepts only text/html is answered 406 NOT_ACCEPTABLE. Give it an example written in it',
      'paths./xml.get.responses.200.content.text/xml: -m has no example written in text/xml (an object whose keys are not all XML element names is no text/xml): a call that accepts only text/xml is answered 406 NOT_ACCEPTABLE. Give it an example written in it',
    ]);
  });
});

describe('the gateway with -m, asked for HTML over HTTP', () => {
  it('answers 406 in JSON, never an HTML content type over a JSON body', async () => {
    const gateway = await startTestGateway([jsonAndHtml], { mock: true });
    try {
      const html = await fetch(`${gateway.url}/pets`, { headers: { accept: 'text/html' } });
      expect([html.status, html.headers.get('content-type')]).toEqual([406, 'application/json; charset=utf-8']);
      expect(await html.json()).toMatchObject({
        code: 'NOT_ACCEPTABLE',
        error: expect.stringContaining('application/json'),
      });
      const json = await fetch(`${gateway.url}/pets`, { headers: { accept: 'application/json' } });
      expect([json.status, await json.json()]).toEqual([200, pet]);
    } finally {
      await gateway.close();
    }
  });
});
