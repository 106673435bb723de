import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSourceLocator } from '@restbus/openapi';
import { loadApi } from '../openapi/load-api';
import { createReplyChecks } from './create-reply-checks';
import { findExampleWarnings } from './find-example-warnings';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-example-warnings-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function warningsOf(name: string, lines: string[]) {
  const file = join(dir, name);
  await writeFile(file, lines.join('\n'));
  const endpoints = await loadApi(file);
  const { checkers } = createReplyChecks(endpoints);
  const warnings = await findExampleWarnings(endpoints, checkers, { locate: createSourceLocator() });
  return warnings.map(({ path, line, column }) => ({ path, line, column }));
}

describe('findExampleWarnings', () => {
  it('places the warning of an example under a range written in lower case at its line', async () => {
    expect(
      await warningsOf('range.yml', [
        'openapi: 3.0.3',
        'info: { title: range, version: "1" }',
        'paths:',
        '  /a:',
        '    get:',
        '      responses:',
        "        '2xx':",
        '          description: fine',
        '          content:',
        '            application/json:',
        '              schema: { type: integer }',
        '              example: not a number',
      ]),
    ).toEqual([{ path: 'paths./a.get.responses.2xx.content.application/json.example', line: 12, column: 15 }]);
  });

  it('places the warning of a Swagger 2 example at the example written for its type', async () => {
    expect(
      await warningsOf('swagger.yml', [
        'swagger: "2.0"',
        'info: { title: swagger, version: "1" }',
        'produces: [application/json]',
        'paths:',
        '  /a:',
        '    get:',
        '      responses:',
        '        200:',
        '          description: fine',
        '          schema: { type: integer }',
        '          examples:',
        '            application/json: not a number',
      ]),
    ).toEqual([{ path: 'paths./a.get.responses.200.examples.application/json', line: 12, column: 13 }]);
  });
});
