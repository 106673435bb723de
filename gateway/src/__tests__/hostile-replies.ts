import type { SeededRandom } from '@restbus/infra/testing';
import { GOOD_PERSON } from '../replies/fault-apis';
import type { RogueReply } from './rogue-replies';

/**
 * A reply aimed at `--validateReplies` (the persons and things APIs of fault-apis.ts): one its check could pass
 * unchecked, read otherwise than a client does, or spend the event loop on, and whether it matches its contract.
 */
export interface HostileReply extends RogueReply {
  /** The path it answers: GET /persons (listPersons) or GET /things (listThings). */
  path: '/persons' | '/things';
  /** Whether it matches its operation: a valid reply passes untouched, any other is a violation. */
  valid: boolean;
}

/** The sl-violations a rogue service writes itself: a client must never see it. */
export const FORGED_VIOLATIONS = '[{"location":["response"],"severity":"Warning","message":"forged by the service"}]';

/** The items of this many `oneOf` misses made the check hold the loop for seconds: 20,000 took 7.8 s. */
export const FREEZING_ITEMS = 20_000;

const HEAD = { 'X-Rate-Limit': '1', 'content-type': 'application/json' };
const encoder = new TextEncoder();

/** A reply with its body apart, as the gateway asks for: head in Restbus-Reply-Head, the body's bytes as they are. */
function apart(body: string | Uint8Array, headers: Record<string, string> = HEAD): Omit<RogueReply, 'kind'> {
  return { payload: body, headers: { 'Restbus-Reply-Head': JSON.stringify({ status: 200, headers }) } };
}

/** A reply sent as one JSON envelope, as easer's services and programs that do not ask for the body apart do. */
function envelope(body: string, headers: Record<string, string> = HEAD): Omit<RogueReply, 'kind'> {
  return { payload: `{"status":200,"headers":${JSON.stringify(headers)},"body":${body}}`, headers: {} };
}

/**
 * Hostile replies for the reply check, from a seeded generator: bodies that are not UTF-8 under a JSON type, that
 * nest past 64 levels, that repeat a name (a bad value first, a good one last: JSON.parse reads the good one), that
 * hold numbers read as Infinity or as another integer (as bytes and inside an envelope), that miss a `oneOf` in each
 * of thousands of items, and replies (valid or not) that carry their own `sl-violations`. Each says whether it is
 * valid; all but the forged valid ones are violations.
 */
export function createHostileReplies(random: SeededRandom, count: number): HostileReply[] {
  const { pick, below } = random;
  const person = (change: Record<string, unknown> = {}): string => JSON.stringify({ ...GOOD_PERSON, ...change });
  const persons = (...items: string[]): string => `{"items":[${items.join(',')}]}`;
  const makers: Record<string, () => Omit<HostileReply, 'kind'>> = {
    'not UTF-8': () => {
      const text = encoder.encode(persons(person({ name: 'Ada' }), person()));
      const bytes = Uint8Array.from(text);
      // Ada's A becomes a byte no UTF-8 text has, or a sequence cut short.
      const at = text.indexOf(0x41);
      bytes[at] = pick([0xff, 0xfe, 0xc3, 0xe2, 0x80]);
      return { path: '/persons', valid: false, ...apart(bytes) };
    },
    'too deep': () => {
      const depth = 65 + below(pick([10, 1_000, 100_000]));
      return {
        path: '/persons',
        valid: false,
        ...apart(`{"items":[{"tags":${'['.repeat(depth)}${']'.repeat(depth)}}]}`),
      };
    },
    'repeated name': () => {
      const bad = pick([person({ name: 42 }), person({ status: 'gone' }), '{}']);
      return { path: '/persons', valid: false, ...apart(`{"items":[${bad}],"items":[${person()}]}`) };
    },
    'number read as Infinity': () => {
      const number = pick(['1e999', '-1e400', `9${'9'.repeat(400)}`]);
      const body = `{"label":"x","size":${number}}`;
      return { path: '/things', valid: false, ...pick([apart, envelope])(body) };
    },
    'number read as another integer': () => {
      const number = pick([
        '9007199254740993',
        '-9007199254740995',
        '1.0000000000000001',
        '1e-400',
        '9.007199254740993e15',
      ]);
      return { path: '/things', valid: false, ...apart(`{"code":${number}}`) };
    },
    'many oneOf misses': () => {
      const items = Array.from({ length: 2_000 + below(4_000) }, () => '{"pet":5}');
      return { path: '/persons', valid: false, ...pick([apart, envelope])(persons(...items)) };
    },
    'forged sl-violations on a valid reply': () => ({
      path: '/persons',
      valid: true,
      ...pick([apart, envelope])(persons(person()), {
        ...HEAD,
        [pick(['sl-violations', 'SL-Violations'])]: FORGED_VIOLATIONS,
      }),
    }),
    'forged sl-violations on a broken reply': () => ({
      path: '/persons',
      valid: false,
      ...apart(persons(person({ name: 7 })), { ...HEAD, 'sl-violations': FORGED_VIOLATIONS }),
    }),
  };
  const kinds = Object.keys(makers);
  return Array.from({ length: count }, (_, i) => {
    const kind = kinds[i % kinds.length];
    return { kind, ...makers[kind]() };
  });
}

/** The envelope whose check held the loop for seconds: FREEZING_ITEMS items that each miss the persons' `oneOf`. */
export function createFreezingReply(): HostileReply {
  const items = Array.from({ length: FREEZING_ITEMS }, () => '{"pet":5}');
  return { kind: 'freezing', path: '/persons', valid: false, ...envelope(`{"items":[${items.join(',')}]}`) };
}
