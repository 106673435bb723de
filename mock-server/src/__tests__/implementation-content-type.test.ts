import { rm } from 'node:fs/promises';
import type { MockServer } from '../server/start-mock-server';
import { rawGet } from './raw-get';
import { sampleFiles, serveProject, writeProject, type Files } from './sample-project';

// Each implementation sets its Content-Type (or not) the way one of upstream's did, then answers.
const IMPLEMENTATIONS: Record<string, string> = {
  set: `(req, res) => { res.set('Content-Type', 'application/json'); res.send('{"a":1}'); }`,
  header: `(req, res) => { res.header('Content-Type', 'application/json'); res.write('{"a":1}'); res.end('\\n'); }`,
  type: `(req, res) => res.type('application/json').send('true\\n')`,
  setHeader: `(req, res) => { res.setHeader('Content-Type', 'application/json'); res.send('[]'); }`,
  setThenJson: `(req, res) => { res.set('Content-Type', 'application/json'); res.json({ a: 1 }); }`,
  setObject: `(req, res) => { res.set({ 'content-type': 'text/plain', 'x-a': '1' }); res.send('plain'); }`,
  ownCharset: `(req, res) => { res.set('Content-Type', 'text/plain; charset=iso-8859-1'); res.send('x'); }`,
  json: `(req, res) => res.json({ a: 1 })`,
  html: `(req, res) => res.send('<p>hi</p>')`,
  shorthand: `(req, res) => res.type('json').send('{}')`,
  replaced: `(req, res) => { res.set('Content-Type', 'application/json'); res.sendStatus(202); }`,
  async: `async (req, res) => { res.set('Content-Type', 'application/json'); await new Promise((r) => setTimeout(r, 5)); res.send('{}'); }`,
};

function projectFiles(): Files {
  const files = sampleFiles();
  const names = Object.keys(IMPLEMENTATIONS);
  const result: Files = {
    ...files,
    'config.yml': (files['config.yml'] as string).replace('  - /broken\n', '  - /types\n'),
    'server/types.js': names.map((name) => `exports.${name} = ${IMPLEMENTATIONS[name]};\n`).join(''),
    'services/types/service.yml': `name: Types
description: Sets the Content-Type in every way
uriTemplate: /types/{how}
methods:
  GET:
    summary: by the how parameter
    implementation: types.dispatch
    responses: [{ name: OK, statusCode: 200, reason: fine }]
`,
  };
  result['server/types.js'] += 'exports.dispatch = (req, res) => exports[req.params.how](req, res);\n';
  return result;
}

let project: string;
let server: MockServer;

beforeAll(async () => {
  project = await writeProject(projectFiles());
  server = await serveProject(project, { watch: false });
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

const typeOf = async (how: string): Promise<string | undefined> => {
  const response = await rawGet(server.url, `/rest/types/${how}`);
  return response.headers['content-type'] as string | undefined;
};

describe('the Content-Type an implementation sets', () => {
  it.each([
    ['res.set', 'set', 'application/json'],
    ['res.header with write and end, as upstream’s templates did', 'header', 'application/json'],
    ['res.type with a full type', 'type', 'application/json'],
    ['res.setHeader before res.send', 'setHeader', 'application/json'],
    ['res.set before res.json', 'setThenJson', 'application/json'],
    ['res.set with an object of headers', 'setObject', 'text/plain'],
    ['res.set with a charset of its own', 'ownCharset', 'text/plain; charset=iso-8859-1'],
    ['res.set before an answer sent after a pause', 'async', 'application/json'],
  ])('is sent exactly as set through %s', async (_how, name, expected) => {
    expect(await typeOf(name)).toBe(expected);
  });

  it.each([
    ['res.json without a type set', 'json', 'application/json; charset=utf-8'],
    ['res.send of HTML without a type set', 'html', 'text/html; charset=utf-8'],
    ['a shorthand type (res.type("json")), which express expands', 'shorthand', 'application/json; charset=utf-8'],
    ['a type express replaces (sendStatus)', 'replaced', 'text/plain; charset=utf-8'],
  ])('keeps express’s own type and charset for %s', async (_how, name, expected) => {
    expect(await typeOf(name)).toBe(expected);
  });

  it('leaves the server’s own JSON answers with their charset', async () => {
    const missing = await rawGet(server.url, '/rest/nothing');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/json; charset=utf-8');
    const failed = await rawGet(server.url, '/rest/types/nope');
    expect(failed.status).toBe(500);
    expect(failed.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});
