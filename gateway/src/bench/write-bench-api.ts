import { writeFile } from 'node:fs/promises';

/** Writes an OpenAPI file with `GET /hello` and `extra` more endpoints (`/r<n>/{id}`, several methods each). */
export async function writeBenchApi(file: string, extra = 0): Promise<void> {
  const operation = {
    responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
  };
  const paths: Record<string, unknown> = { '/hello': { get: operation } };
  for (let i = 0; i < Math.ceil(extra / 4); i++) {
    paths[`/r${i}/{id}`] = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: operation,
      put: operation,
      post: operation,
      delete: operation,
    };
  }
  await writeFile(file, JSON.stringify({ openapi: '3.0.3', info: { title: 'bench', version: '1' }, paths }));
}
