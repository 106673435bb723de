import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { HOSTILE_PIECES, FuzzTally } from '@restbus/infra/testing';
import { MAX_YAML_DEPTH } from './measure-yaml-document';
import { readYamlFile } from './read-yaml-file';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const YAML_PIECES = [
  '\n',
  '\n  ',
  '\n    ',
  '- ',
  ': ',
  '? ',
  '&a ',
  '*a',
  '<<: *a',
  '!!js/function ',
  '!!binary ',
  '|',
  '>',
];
const hostileYaml = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...YAML_PIECES) },
      { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_PIECES) },
      { weight: 2, arbitrary: fc.string({ unit: anyUnit, maxLength: 3 }) },
      { weight: 1, arbitrary: fc.integer({ min: 150, max: 260 }).map((depth) => '- '.repeat(depth)) },
      { weight: 1, arbitrary: fc.integer({ min: 150, max: 260 }).map((depth) => '['.repeat(depth)) },
    ),
    { maxLength: 20 },
  )
  .map((pieces) => pieces.join(''));

let folder: string;
let files = 0;
const tally = new FuzzTally('parsers fuzz: read-yaml-file');

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'restbus-yaml-fuzz-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
  tally.record();
});

async function readText(text: string): ReturnType<typeof readYamlFile> {
  const path = join(folder, `${files++}.yml`);
  await writeFile(path, text);
  try {
    return await readYamlFile(path, 'service.yml');
  } catch (err) {
    tally.crashes++;
    throw err;
  } finally {
    await rm(path, { force: true });
  }
}

/** Levels of maps and sequences in a value (a loop: values nest). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const inner of Object.values(next)) pending.push([inner, depth + 1]);
  }
  return deepest;
}

/** Every object in a value, checking that none inherits from anything but Object.prototype (a loop: values nest). */
function inheritsOnlyObject(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    const prototype = Object.getPrototypeOf(next);
    if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null) return false;
    pending.push(...Object.values(next));
  }
  return true;
}

describe('readYamlFile under fuzzed files', () => {
  it('reads any file into plain data or problems naming the file and a line, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(hostileYaml, async (text) => {
        tally.cases++;
        const read = await readText(text);
        if (read.ok) {
          expect(inheritsOnlyObject(read.file.value)).toBe(true);
          expect(depthOf(read.file.value)).toBeLessThanOrEqual(MAX_YAML_DEPTH);
          expect(() => JSON.stringify(read.file.value)).not.toThrow();
        } else {
          const lines = text.split(/\r\n|\r|\n/).length;
          for (const problem of read.problems) {
            const line = Number(/^service\.yml:(\d+): ./s.exec(problem)?.[1]);
            expect(line >= 1 && line <= lines).toBe(true);
          }
        }
        expect(tally.prototypeIntact()).toBe(true);
      }),
      { seed: 440_6111, numRuns: 150 },
    );
  });

  it('gives back the data a YAML or JSON writer wrote, __proto__ and constructor keys as plain keys', async () => {
    // Not `<<`: with merge keys on, a key so spelled is one, and merges only maps.
    const key = fc.oneof(
      fc.constantFrom('__proto__', 'constructor', 'toString'),
      fc.string({ maxLength: 6 }).filter((name) => name !== '<<'),
    );
    const data = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(
          fc.constant(null),
          fc.boolean(),
          fc.integer(),
          fc.string({ unit: 'grapheme', maxLength: 6 }),
          fc.string({ unit: anyUnit, maxLength: 4 }),
        ),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(key, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    await fc.assert(
      fc.asyncProperty(data, fc.boolean(), async (value, asJson) => {
        tally.cases++;
        const read = await readText(asJson ? JSON.stringify(value) : stringify(value));
        expect(read).toMatchObject({ ok: true });
        if (!read.ok) return;
        expect(JSON.stringify(read.file.value)).toBe(JSON.stringify(value));
        expect(inheritsOnlyObject(read.file.value)).toBe(true);
      }),
      { seed: 440_6112, numRuns: 150 },
    );
  });
});
