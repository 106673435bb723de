import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonObject } from '@restbus/infra';
import { parse } from 'yaml';
import { makeTempDir, runTool } from '../__tests__/tool-helpers';

/** Imports `document` (beside `files`) into a new project and answers a service's descriptor and a file beside it. */
async function importOne(
  document: JsonObject,
  files: Record<string, string>,
  service: string,
  beside: string,
): Promise<{ descriptor: JsonObject; file: unknown; stderr: string }> {
  const temp = await makeTempDir();
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(temp.dir, name), text);
    await writeFile(join(temp.dir, 'api.json'), JSON.stringify(document));
    const imported = await runTool(temp.dir, ['import-oas', join(temp.dir, 'api.json')]);
    expect(imported.code).toBe(0);
    const folder = join(temp.dir, 'api', 'services', ...service.split('/'));
    return {
      descriptor: parse(await readFile(join(folder, 'service.yml'), 'utf8')) as JsonObject,
      file: JSON.parse(await readFile(join(folder, beside), 'utf8')) as unknown,
      stderr: imported.stderr,
    };
  } finally {
    await temp.remove();
  }
}

describe('rest-tool import-oas reads parameters, bodies and responses from the model', () => {
  it("fills the test URL from the parameters' named examples and mocks the response with its externalValue example", async () => {
    const { descriptor, file, stderr } = await importOne(
      {
        openapi: '3.0.3',
        info: { title: 'api', version: '1' },
        paths: {
          '/things/{id}': {
            get: {
              parameters: [
                {
                  name: 'id',
                  in: 'path',
                  required: true,
                  schema: { type: 'string' },
                  examples: { a: { value: 'x7' } },
                },
                {
                  name: 'q',
                  in: 'query',
                  required: true,
                  schema: { type: 'string' },
                  examples: { b: { value: 'uno' } },
                },
              ],
              responses: {
                '200': {
                  description: 'the thing',
                  content: {
                    'application/json': {
                      schema: { type: 'object', properties: { name: { type: 'string' } } },
                      examples: { fromFile: { externalValue: 'thing.json' } },
                    },
                  },
                },
              },
            },
          },
        },
      },
      { 'thing.json': '{"name": "from the file"}' },
      'things/thing',
      'getResource-responseBody.json',
    );
    expect(stderr).toBe('');
    const get = (descriptor.methods as Record<string, JsonObject>).GET;
    expect((get.testCases as JsonObject[])[0].url).toBe('/things/x7?q=uno');
    expect(file).toEqual({ name: 'from the file' });
  });

  it('mocks a Swagger 2 body parameter with its x-example, under the first JSON type it consumes', async () => {
    const { descriptor, file, stderr } = await importOne(
      {
        swagger: '2.0',
        info: { title: 'api', version: '1' },
        consumes: ['application/xml', 'application/json'],
        paths: {
          '/things': {
            post: {
              parameters: [
                {
                  name: 'thing',
                  in: 'body',
                  description: 'the new thing',
                  schema: { type: 'object', properties: { name: { type: 'string' } } },
                  'x-example': { name: 'Rex' },
                },
              ],
              responses: { '201': { description: 'made' } },
            },
          },
        },
      },
      {},
      'things',
      'postCollection-requestBody.json',
    );
    expect(stderr).toContain(
      'POST /things: the request body as application/xml left out (only JSON bodies are imported)',
    );
    const post = (descriptor.methods as Record<string, JsonObject>).POST;
    expect(post.request).toMatchObject({ description: 'the new thing', mockBody: 'postCollection-requestBody.json' });
    expect(file).toEqual({ name: 'Rex' });
  });

  it('makes an event stream of a GET answering text/event-stream: its examples the events, its itemSchema the schema of one, no test case', async () => {
    const { descriptor, file, stderr } = await importOne(
      {
        openapi: '3.1.0',
        info: { title: 'api', version: '1' },
        paths: {
          '/orders/events': {
            get: {
              'x-restbus-stream': { subject: 'orders.events' },
              responses: {
                '200': {
                  description: 'one event per change',
                  content: {
                    'text/event-stream': {
                      itemSchema: {
                        type: 'object',
                        required: ['type'],
                        properties: { type: { type: 'string' } },
                        examples: [{ type: 'created' }, { type: 'shipped' }],
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      {},
      'orders/events',
      'getCollection-events.json',
    );
    expect(stderr).toBe('');
    expect(file).toEqual([{ type: 'created' }, { type: 'shipped' }]);
    const get = (descriptor.methods as Record<string, JsonObject>).GET;
    expect(get.responses).toEqual([
      expect.objectContaining({
        name: 'OK',
        headers: [{ field: 'Content-Type', content: 'text/event-stream' }],
        mockBody: 'getCollection-events.json',
        validationSchema: 'getCollection-eventSchema.json',
      }),
    ]);
    expect(get.request).toMatchObject({ headers: [{ field: 'Accept', content: 'text/event-stream' }] });
    expect(get.testCases).toBeUndefined();
  });
});
