import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonObject } from '@restbus/infra';
import { parse } from 'yaml';
// The gateway is not a dependency of the tool: its sources are read here only to prove it loads the export.
import { loadApi } from '@restbus/gateway/testing';
import { makeTempDir, runTool } from './tool-helpers';

const EVENT = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' }, order: { type: 'string' } },
};

describe('an event stream through import-oas and export-oas', () => {
  it('comes back as text/event-stream with the schema of one event and the events as its examples', async () => {
    const temp = await makeTempDir();
    try {
      await writeFile(
        join(temp.dir, 'api.json'),
        JSON.stringify({
          openapi: '3.1.0',
          info: { title: 'shop', version: '1' },
          paths: {
            '/orders/events': {
              get: {
                summary: 'Watch the orders',
                responses: {
                  '200': {
                    description: 'one event per change',
                    content: {
                      'text/event-stream': {
                        itemSchema: { ...EVENT, examples: [{ type: 'created', order: 'o-1' }, { type: 'paid' }] },
                      },
                    },
                  },
                },
              },
            },
          },
        }),
      );
      expect(await runTool(temp.dir, ['import-oas', join(temp.dir, 'api.json')])).toMatchObject({ code: 0 });
      const project = join(temp.dir, 'shop');
      expect(await runTool(project, ['export-oas', '-o', 'out.yml'])).toMatchObject({ code: 0, stderr: '' });
      const exported = parse(await readFile(join(project, 'out.yml'), 'utf8')) as {
        paths: Record<string, Record<string, { responses: Record<string, JsonObject> }>>;
      };
      const ok = exported.paths['/orders/events'].get.responses['200'];
      expect(ok.content).toEqual({
        'text/event-stream': {
          itemSchema: expect.objectContaining({
            ...EVENT,
            examples: [{ type: 'created', order: 'o-1' }, { type: 'paid' }],
          }) as unknown,
        },
      });
      // The gateway reads the export (the official schema, with OAS 3.2's itemSchema allowed in 3.1).
      const endpoints = await loadApi(join(project, 'out.yml'));
      const events = endpoints.find((endpoint) => endpoint.desc.uri === '/orders/events');
      expect(events?.model.responses[0].content['text/event-stream'].itemSchema).toMatchObject(EVENT);
    } finally {
      await temp.remove();
    }
  });
});
