import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRoutes } from './check-routes';
import { formatDiagnostic } from './diagnostic';
import { readApiDescription } from './read-api-description';
import { MAX_STREAM_SUBJECT_BYTES } from './subject-limits';

const EVENTS = "responses: {'200': {description: e, content: {text/event-stream: {itemSchema: {type: object}}}}}";

describe('checkStream and the length of a stream subject', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'restbus-check-stream-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('refuses at load, at its file and line, a subject too long even with one-byte values, and keeps one the values decide', async () => {
    const names = Array.from({ length: 17 }, (_, i) => `p${i}`);
    const parameters = `parameters: [${names.map((name) => `{name: ${name}, in: path, required: true, schema: {type: string}}`).join(', ')}]`;
    const many = `wide.${names.map((name) => `{${name}}`).join('.')}`;
    const path = names.map((name) => `{${name}}`).join('/');
    // Its fixed part alone passes the limit by one byte, with the placeholder's one.
    const fixed = 'f'.repeat(MAX_STREAM_SUBJECT_BYTES - 1);
    const file = join(dir, 'streams.yml');
    await writeFile(
      file,
      [
        'openapi: 3.0.3',
        'info: {title: S, version: "1"}',
        'paths:',
        `  /many/${path}: {${parameters}, get: {x-restbus-stream: {subject: "${many}"}, ${EVENTS}}}`,
        `  /fits/{id}: {parameters: [{name: id, in: path, required: true, schema: {type: string}}], get: {x-restbus-stream: {subject: "${fixed.slice(2)}.{id}"}, ${EVENTS}}}`,
        `  /long/{id}: {parameters: [{name: id, in: path, required: true, schema: {type: string}}], get: {x-restbus-stream: {subject: "${fixed}.{id}"}, ${EVENTS}}}`,
        '',
      ].join('\n'),
    );
    const routes = checkRoutes(await readApiDescription(file, { topicPrefix: 'svc' }));
    expect(routes.operations.map((operation) => operation.path)).toEqual([`/many/${path}`, '/fits/{id}']);
    expect(routes.diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${file}:6:\\d+  error  paths\\./long/\\{id\\}\\.get\\.x-restbus-stream\\.subject: the subject "f{48}…" has ${MAX_STREAM_SUBJECT_BYTES + 1} bytes even with one-byte values, more than the ${MAX_STREAM_SUBJECT_BYTES} `,
        ),
      ),
    ]);
  });
});
