import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { createSeededRandom, recordHostileCounts, type SeededRandom } from '@restbus/infra/testing';
import { loadApi } from './load-api';

/** A load this much slower than the slowest expected (a fraction of a second) is a hang, not a slow machine. */
const head = 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\n';
const oneGet = (responses = '{"200": {description: ok}}') => `paths:\n  /a:\n    get:\n      responses: ${responses}\n`;

function exponentialRefs(random: SeededRandom): string {
  const levels = 18 + random.below(14);
  const schemas: Record<string, unknown> = { L0: { type: 'string' } };
  for (let level = 1; level <= levels; level++) {
    const below = { $ref: `#/components/schemas/L${level - 1}` };
    schemas[`L${level}`] = { type: 'object', properties: { a: below, b: below, c: below } };
  }
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/x': {
        post: {
          requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/L${levels}` } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
    components: { schemas },
  });
}

function yamlAliasBomb(random: SeededRandom): string {
  const levels = 8 + random.below(4);
  const lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let level = 1; level <= levels; level++) {
    lines.push(`a${level}: &a${level} [${Array.from({ length: 9 }, () => `*a${level - 1}`).join(', ')}]`);
  }
  const where = random.pick(['example', 'x-bomb', 'description']);
  return `${head}x-defs:\n${lines.map((line) => `  ${line}`).join('\n')}\n${oneGet(
    `{"200": {description: ok, content: {text/plain: {${where}: *a${levels}}}}}`,
  )}`;
}

function deepNesting(random: SeededRandom): string {
  const depth = 300 + random.below(200_000);
  const [open, close] = random.pick([
    ['[', ']'],
    ['{"a":', '}'],
  ]);
  const example = `${open.repeat(depth)}1${close.repeat(depth)}`;
  return random.below(2) === 0
    ? `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok","content":{"text/plain":{"example":${example}}}}}}}}}`
    : `${head}${oneGet(`{"200": {description: ok, content: {text/plain: {example: ${example}}}}}`)}`;
}

function refCycle(random: SeededRandom): string {
  return random.pick([
    // A schema that contains itself, the common legitimate case.
    `${head}${oneGet('{"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Node"}}}}}')}components:\n  schemas:\n    Node: {type: object, properties: {next: {$ref: "#/components/schemas/Node"}}}\n`,
    // $refs that only lead to each other.
    `${head}${oneGet('{"200": {$ref: "#/components/responses/A"}}')}components:\n  responses:\n    A: {$ref: "#/components/responses/B"}\n    B: {$ref: "#/components/responses/A"}\n`,
    // A $ref to itself, and one to the whole document.
    `${head}${oneGet('{"200": {$ref: "#/components/responses/Self"}}')}components:\n  responses:\n    Self: {$ref: "#/components/responses/Self"}\n`,
    `${head}${oneGet('{"200": {description: ok, content: {application/json: {schema: {$ref: "#"}}}}}')}`,
    `${head}${oneGet('{"200": {$ref: "#/paths/~1a/get/responses/200"}}')}`,
  ]);
}

function hugeString(random: SeededRandom): string {
  const length = 1_000_000 + random.below(2_000_000);
  return `${head}${oneGet(`{"200": {description: "${'x'.repeat(length)}"}}`)}`;
}

function unknownTag(random: SeededRandom): string {
  const tag = random.pick([
    '!!js/function',
    '!!js/regexp',
    '!custom',
    '!!binary',
    '!!python/object',
    '!<tag:x,2000:y>',
  ]);
  return `${head}${oneGet(`{"200": {description: ${tag} "function () { return 1 }"}}`)}`;
}

function adjacentParameters(random: SeededRandom): string {
  const count = 50 + random.below(500);
  const names = Array.from({ length: count }, (_, i) => `p${i}`);
  const path = random.pick([
    `/${names.map((name) => `{${name}}`).join('')}`,
    `/${names.map((name) => `{${name}}`).join('-')}`,
    `/${'{'.repeat(count)}x${'}'.repeat(count)}`,
    `/${random.text(200)}`,
    `/a/${'{}'.repeat(count)}`,
  ]);
  const parameters = names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: { [path]: { get: { parameters, responses: { '200': { description: 'ok' } } } } },
  });
}

function nonObjectRoot(random: SeededRandom): string {
  return random.pick(['[]', '"openapi"', '42', 'null', 'true', '', '---\n...\n', '[1, 2, 3]', '~', '{}', '- a\n- b\n']);
}

function binary(random: SeededRandom): Buffer {
  return Buffer.from(Array.from({ length: 1 + random.below(64 * 1024) }, () => random.below(256)));
}

function oddRefs(random: SeededRandom): string {
  const ref = random.pick([
    '#/components/responses/absent',
    '#nameonly',
    '#/%zz',
    '/dev/zero',
    './',
    '..',
    'file:///dev/zero',
    '\u0000',
    '#/paths/~1a/get/responses/200/description',
    `${'../'.repeat(40)}etc/passwd`,
  ]);
  return `${head}${oneGet(`{"200": {$ref: ${JSON.stringify(ref)}}}`)}`;
}

function brokenSwagger2(random: SeededRandom): string {
  return random.pick([
    'swagger: 2.0\ninfo: {title: t, version: "1"}\npaths: {}\n',
    'swagger: "2.0"\ninfo: {title: t, version: 1}\npaths: {}\n',
    'swagger: "2.0"\ninfo: {title: t, version: "1"}\npaths: {/a: {get: {parameters: [{in: body, name: b, schema: {$ref: "#/definitions/X"}}], responses: {"200": {description: ok}}}}}\ndefinitions: {X: {$ref: "#/definitions/X"}}\n',
    'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths: {"/a": {get: {responses: {"200": {description: ok, headers: {__proto__: {schema: {type: string}}}}}}}}\n',
  ]);
}

/** The port of a local HTTP server that counts the connections made to it: every `$ref` URL below leads there. */
let countingPort = 0;

function urlRef(random: SeededRandom): string {
  const host = random.pick(['127.0.0.1', '0.0.0.0', '[::1]', '[::ffff:127.0.0.1]', 'localhost', '2130706433']);
  const at = `${host}:${countingPort}/${random.pick(['a.yml', 'redirect', 'a.json#/x'])}`;
  const ref = random.pick([
    `http://${at}`,
    `HTTPS://${at}`,
    `//${at}`,
    `\\\\${at}`,
    `https:${at}`,
    `ht\ttp://${at}`,
    ` http://${at}`,
  ]);
  const where = random.pick([
    `${oneGet(`{"200": {$ref: ${JSON.stringify(ref)}}}`)}`,
    `${oneGet()}components: {schemas: {Unused: {$ref: ${JSON.stringify(ref)}}}}\n`,
    `${oneGet()}x-anything: {example: {$ref: ${JSON.stringify(ref)}}}\n`,
  ]);
  return `${head}${where}`;
}

/** A path whose NATS subject would be too long or hold a control character. */
function unsafePath(random: SeededRandom): string {
  const path = random.pick([
    `/${'a'.repeat(3600 + random.below(100_000))}`,
    `/${'é'.repeat(1800 + random.below(1000))}`,
    `/a${String.fromCharCode(random.below(32))}b`,
    `/a${String.fromCharCode(0x7f + random.below(33))}/{id}`,
    `/a\r\nPUB x 0\r\n`,
  ]);
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: { [path]: { get: { responses: { '200': { description: 'ok' } } } } },
  });
}

/** What no loader may accept, whatever else it does with them. */
const REFUSED_KINDS = new Set<string>(['urlRef', 'unsafePath']);

const KINDS: ReadonlyArray<(random: SeededRandom) => string | Buffer> = [
  exponentialRefs,
  yamlAliasBomb,
  deepNesting,
  refCycle,
  hugeString,
  unknownTag,
  adjacentParameters,
  nonObjectRoot,
  binary,
  oddRefs,
  brokenSwagger2,
  urlRef,
  unsafePath,
];
// Each of the 13 kinds twice, with two draws of its random parts.
const FILES = 26;

describe('loading hostile OpenAPI files', () => {
  let dir: string;
  let server: Server;
  let fetches = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'restbus-hostile-openapi-'));
    server = createServer((req, res) => {
      if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${countingPort}/a.yml` }).end();
      else res.writeHead(200, { 'content-type': 'application/yaml' }).end('type: object\n');
    });
    server.on('connection', () => fetches++);
    // Every local address: 0.0.0.0 and ::ffff:127.0.0.1 arrive through the dual stack.
    server.listen(0, '::');
    await once(server, 'listening');
    countingPort = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('loads each file or refuses it with a load error that says why, never crashing, and fetches nothing', async () => {
    const random = createSeededRandom(20261123);
    const crashes: string[] = [];
    const accepted: string[] = [];
    for (let index = 0; index < FILES; index++) {
      const kind = KINDS[index % KINDS.length];
      const file = join(dir, `${index}-${kind.name}.${index % 3 === 0 ? 'json' : 'yml'}`);
      await writeFile(file, kind(random));
      const outcome = await loadApi(file).then(
        () => undefined,
        (err: unknown) => err,
      );
      const described =
        outcome === undefined ||
        (outcome instanceof RestbusError &&
          outcome.code === 'OPENAPI_INVALID' &&
          outcome.message.startsWith(`${file}`) &&
          outcome.message.length > file.length + 2 &&
          !/\n\s+at /.test(outcome.message));
      if (!described) crashes.push(`${kind.name}: ${String((outcome as Error)?.stack ?? outcome).slice(0, 300)}`);
      if (outcome === undefined && REFUSED_KINDS.has(kind.name)) accepted.push(`${index}-${kind.name}`);
    }
    recordHostileCounts('openapi', {
      tried: { files: FILES },
      found: { crashes: crashes.length, accepted: accepted.length, fetches },
    });
    expect({ crashes, accepted, fetches }).toEqual({ crashes: [], accepted: [], fetches: 0 });
    // About half a second a file (Spectral's worker starts for each): a load that hung would pass this bound, some
    // twenty times what the files take on a quiet machine. How long each load takes is no assertion (issue 45).
  }, 600_000);
});
