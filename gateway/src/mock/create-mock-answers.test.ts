import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRestbusError } from '@restbus/infra';
import type { ApiEndpoint } from '../openapi/endpoint';
import { testEndpoint } from '../__tests__/start-test-gateway';
import { loadApi } from '../openapi/load-api';
import { createMockAnswers, DEFAULT_MOCK_ANSWER_LIMITS } from './create-mock-answers';

const API = `
openapi: 3.0.3
info: { title: answers, version: '1.0' }
paths:
  /pets:
    get:
      responses:
        '200':
          description: the pets
          content:
            application/json:
              examples:
                one: { value: [{ name: Rex }] }
                none: { value: [] }
            text/plain:
              example: Rex
        '404':
          description: none
          content: { application/json: { example: { error: missing } } }
`;

let dir: string;
let pets: ApiEndpoint;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-answers-'));
  await writeFile(join(dir, 'api.yml'), API);
  [pets] = await loadApi(join(dir, 'api.yml'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const textOf = (body: string | Uint8Array | undefined): string =>
  typeof body === 'string' ? body : Buffer.from(body ?? []).toString();

describe('the answers of -m, built once per operation and request shape', () => {
  it('answers each Accept and Prefer with its own answer, however the calls interleave', () => {
    const answers = createMockAnswers();
    const ask = (accept?: string, prefer?: string): string => {
      const answer = answers.answer(pets, { accept, prefer });
      return `${answer.status} ${String(answer.headers['content-type'])} ${textOf(answer.body)}`;
    };
    for (let round = 0; round < 2; round++) {
      expect(ask()).toBe('200 application/json; charset=utf-8 [{"name":"Rex"}]');
      expect(ask('text/plain')).toBe('200 text/plain; charset=utf-8 Rex');
      expect(ask(undefined, 'example=none')).toBe('200 application/json; charset=utf-8 []');
      expect(ask('application/json', 'code=404')).toBe('404 application/json; charset=utf-8 {"error":"missing"}');
    }
  });

  it('frames the answer once: content-length in bytes, the head size counted', () => {
    const answer = createMockAnswers().answer(pets, {});
    expect(answer.headers['content-length']).toBe(Buffer.byteLength(textOf(answer.body)));
    expect(answer.headBytes).toBeGreaterThan(0);
  });

  it('tells an absent Accept (anything) from an empty one (nothing), in either order', () => {
    const answers = createMockAnswers();
    expect(answers.answer(pets, {}).status).toBe(200);
    expect(() => answers.answer(pets, { accept: '' })).toThrow(expect.objectContaining({ code: 'NOT_ACCEPTABLE' }));
    expect(answers.answer(pets, {}).status).toBe(200);
  });

  it('throws the same error every time a request cannot be answered, and keeps no failed answer', () => {
    const answers = createMockAnswers();
    for (let i = 0; i < 2; i++) {
      let thrown: unknown;
      try {
        answers.answer(pets, { prefer: 'example=lost' });
      } catch (err) {
        thrown = err;
      }
      expect(isRestbusError(thrown) && thrown.code).toBe('BAD_REQUEST');
    }
  });

  it('reuses a kept answer, keeps at most 16 request shapes per operation, and never keeps a very long one', () => {
    const answers = createMockAnswers();
    const first = answers.answer(pets, { accept: 'application/json' });
    expect(answers.answer(pets, { accept: 'application/json' })).toBe(first);
    // Fifteen more shapes fill the operation's room; one more pushes the oldest out.
    for (let i = 1; i < 16; i++) answers.answer(pets, { accept: `application/json;q=0.${i}` });
    expect(answers.answer(pets, { accept: 'application/json' })).toBe(first);
    answers.answer(pets, { accept: 'application/json;q=0.99' });
    const rebuilt = answers.answer(pets, { accept: 'application/json' });
    expect(rebuilt).not.toBe(first);
    expect(rebuilt).toEqual(first);
    const long = `application/json, ${'x/y, '.repeat(100)}`;
    expect(answers.answer(pets, { accept: long })).not.toBe(answers.answer(pets, { accept: long }));
  });

  it('keeps no more bytes than its budget over all operations, and answers past it all the same', () => {
    // Each body is 16 bytes ([{"name":"Rex"}]), the keys 17 and 23 ("\n" and the Accept): room for two, not three.
    const answers = createMockAnswers({ ...DEFAULT_MOCK_ANSWER_LIMITS, maxBytes: 16 + 17 + 16 + 23 });
    const shapes = ['application/json', 'application/json;q=0.9', 'application/json;q=0.8'];
    const first = shapes.map((accept) => answers.answer(pets, { accept }));
    const again = shapes.map((accept) => answers.answer(pets, { accept }));
    expect(again.map((answer, i) => answer === first[i])).toEqual([true, true, false]);
    expect(again[2]).toEqual(first[2]);
  });

  it('forgets every kept answer when cleared, as on a reload', () => {
    const answers = createMockAnswers();
    const first = answers.answer(pets, {});
    answers.clear();
    expect(answers.answer(pets, {})).not.toBe(first);
  });
});

describe('the answers of -m in XML', () => {
  it('writes an object example as XML once, and answers the same request shape with the kept answer', () => {
    const endpoint = testEndpoint('get', '/pets', {
      responses: {
        '200': {
          description: 'ok',
          content: { 'application/xml': { schema: { type: 'object', xml: { name: 'pet' } }, example: { id: 7 } } },
        },
      },
    });
    const answers = createMockAnswers();
    const first = answers.answer(endpoint, { accept: 'application/xml' });
    expect([first.status, first.headers['content-type'], textOf(first.body)]).toEqual([
      200,
      'application/xml',
      '<pet>\n  <id>7</id>\n</pet>\n',
    ]);
    expect(answers.answer(endpoint, { accept: 'application/xml' })).toBe(first);
  });
});
