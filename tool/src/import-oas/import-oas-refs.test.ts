import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { recordHostileCounts } from '@restbus/infra/testing';
import { makeTempDir, runTool, runToolProcess } from '../__tests__/tool-helpers';

/** Every way of writing "fetch this from that server" we know of: each resolves to the counting server. */
function urlSpellings(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/a.yml`,
    `http://0.0.0.0:${port}/a.yml`,
    `http://[::ffff:127.0.0.1]:${port}/a.yml`,
    `http://[::1]:${port}/a.yml`,
    `http://localhost:${port}/a.yml`,
    `http://2130706433:${port}/a.yml`,
    `HTTP://0.0.0.0:${port}/a.yml`,
    `https://0.0.0.0:${port}/a.yml`,
    `//0.0.0.0:${port}/a.yml`,
    `\\\\0.0.0.0:${port}\\a.yml`,
    `https:0.0.0.0:${port}/a.yml`,
    `http:/0.0.0.0:${port}/a.yml`,
    `http://0.0.0.0:${port}/redirect`,
    `ht\ttp://0.0.0.0:${port}/a.yml`,
  ];
}

const document = (ref: string): string =>
  JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'pets', version: '1' },
    paths: {
      '/pets': {
        get: {
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } } },
        },
      },
    },
  });

describe('rest-tool import-oas and $refs to URLs', () => {
  let connections = 0;
  let port = 0;
  const server = createServer((req, res) => {
    if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${port}/a.yml` }).end();
    else res.writeHead(200, { 'content-type': 'application/yaml' }).end('type: object\n');
  });
  server.on('connection', () => connections++);
  let temp: Awaited<ReturnType<typeof makeTempDir>>;

  beforeAll(async () => {
    temp = await makeTempDir();
    // Every local address: 0.0.0.0 and ::ffff:127.0.0.1 arrive through the dual stack.
    server.listen(0, '::');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await temp.remove();
  });

  it('refuses a $ref to a URL in every spelling, fetching nothing, and creates no project', async () => {
    const spellings = urlSpellings(port);
    const accepted: string[] = [];
    for (const [i, ref] of spellings.entries()) {
      const file = join(temp.dir, `api-${i}.json`);
      await writeFile(file, document(ref));
      const result = await runTool(temp.dir, ['import-oas', file, `project-${i}`]);
      const refused =
        result.code === 1 && /names a URL|cannot resolve a \$ref: .*(does not exist|ENOENT)/.test(result.stderr);
      if (!refused) accepted.push(`${JSON.stringify(ref)}: ${result.code} ${result.stderr}`);
    }
    recordHostileCounts('tool-import-oas-refs', {
      tried: { spellings: spellings.length },
      found: { accepted: accepted.length, fetches: connections },
    });
    expect({ accepted, fetches: connections }).toEqual({ accepted: [], fetches: 0 });
  });

  it('names the URL a $ref leads to, through the real program', async () => {
    const file = join(temp.dir, 'api.json');
    const ref = `http://[::ffff:127.0.0.1]:${port}/a.yml`;
    await writeFile(file, document(ref));
    const result = await runToolProcess(temp.dir, ['import-oas', file, 'project']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `rest-tool: ${file}:1: paths./pets.get.responses.200.content.application/json.schema: the $ref "${ref}" ` +
        `names a URL (http://[::ffff:7f00:1]:${port}/a.yml): $refs are read only from local files, never fetched\n`,
    );
    expect(connections).toBe(0);
  });
});
