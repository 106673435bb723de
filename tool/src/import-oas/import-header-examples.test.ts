import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonObject } from '@restbus/infra';
import { parse } from 'yaml';
import { makeTempDir, runTool } from '../__tests__/tool-helpers';

/** Imports `document` into a new project and answers the headers of the OK response of GET /things. */
async function importedHeaders(document: JsonObject): Promise<unknown> {
  const temp = await makeTempDir();
  try {
    await writeFile(join(temp.dir, 'api.json'), JSON.stringify(document));
    const imported = await runTool(temp.dir, ['import-oas', join(temp.dir, 'api.json')]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const descriptor = parse(await readFile(join(temp.dir, 'api', 'services', 'things', 'service.yml'), 'utf8')) as {
      methods: { GET: { responses: Array<{ headers?: unknown }> } };
    };
    return descriptor.methods.GET.responses[0].headers;
  } finally {
    await temp.remove();
  }
}

describe('rest-tool import-oas and response headers', () => {
  it("writes a 3.x header's example, or its first named example, as its content", async () => {
    const headers = await importedHeaders({
      openapi: '3.0.3',
      info: { title: 'api', version: '1' },
      paths: {
        '/things': {
          get: {
            responses: {
              '200': {
                description: 'the things',
                headers: {
                  'X-Plain': { schema: { type: 'string' }, example: 'plain' },
                  'X-Named': { schema: { type: 'integer' }, examples: { seven: { value: 7 } } },
                  'X-Sampled': { schema: { type: 'integer', minimum: 3 } },
                },
              },
            },
          },
        },
      },
    });
    expect(headers).toEqual([
      { field: 'X-Plain', content: 'plain' },
      { field: 'X-Named', content: '7' },
      { field: 'X-Sampled', content: '3' },
    ]);
  });

  it("writes a Swagger 2 header's example, or its x-example, as its content", async () => {
    const headers = await importedHeaders({
      swagger: '2.0',
      info: { title: 'api', version: '1' },
      paths: {
        '/things': {
          get: {
            responses: {
              '200': {
                description: 'the things',
                headers: { 'X-Vendor': { type: 'string', 'x-example': 'vendor' }, 'X-Plain': { type: 'integer' } },
              },
            },
          },
        },
      },
    });
    expect(headers).toEqual([
      { field: 'X-Vendor', content: 'vendor' },
      { field: 'X-Plain', content: '0' },
    ]);
  });
});
