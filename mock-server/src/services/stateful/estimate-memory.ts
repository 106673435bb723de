/**
 * What V8 (Node 20, 64-bit, no pointer compression) holds for parsed JSON, in bytes, as measured with
 * `process.memoryUsage().heapUsed` around 200,000 parsed values (estimate-memory.test.ts measures them again):
 *
 * - `{}` 56: header, property and element pointers, four in-object slots JSON.parse reserves;
 * - a member 8 for its slot when its key is shared by many objects, about 120 and its key when every object has a key
 *   of its own (a hidden class and a descriptor array each), about as much in an object with many keys (dictionary
 *   mode);
 * - `[]` 32, and its elements' store: 16 and 8 per element (a double array stores numbers unboxed, others hold a
 *   pointer);
 * - a string 16 and its characters, one byte each when all are Latin-1, else two, rounded up to 8;
 * - a number 16 when it is not a small integer (a heap number), else nothing beyond its slot; true, false and null
 *   nothing beyond their slot.
 *
 * A member is counted as if its key were its object's own: the worst case, which a client chooses freely. So an
 * ordinary item (shared keys) is overestimated some five times, and no item is underestimated.
 */
export const MEMORY_COSTS = {
  object: 64,
  member: 96,
  array: 48,
  element: 8,
  string: 16,
  number: 16,
} as const;

const NOT_LATIN1 = /[\u0100-\uffff]/;
const SMALL_INTEGER = 2 ** 31;

/** A string's bytes on the heap: header and characters, rounded up to a word. */
export function estimateStringMemory(text: string): number {
  const characters = NOT_LATIN1.test(text) ? text.length * 2 : text.length;
  return (MEMORY_COSTS.string + characters + 7) & ~7;
}

const scalarCost = (value: unknown): number => {
  if (typeof value === 'string') return estimateStringMemory(value);
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= -SMALL_INTEGER && value < SMALL_INTEGER ? 0 : MEMORY_COSTS.number;
  }
  return 0;
};

/**
 * The memory a JSON value holds, by a structural count (per object, member, array, element, string and number), in
 * time linear in the value: JSON text is a poor measure, as `{}` costs V8 some twenty times its two bytes. Iterative,
 * so that depth costs no stack.
 */
export function estimateMemory(value: unknown): number {
  let total = scalarCost(value);
  const pending: object[] = [];
  if (value !== null && typeof value === 'object') pending.push(value);
  for (let container = pending.pop(); container !== undefined; container = pending.pop()) {
    if (Array.isArray(container)) {
      total += MEMORY_COSTS.array + container.length * MEMORY_COSTS.element;
      const elements: unknown[] = container;
      for (const element of elements) {
        if (element !== null && typeof element === 'object') pending.push(element);
        else total += scalarCost(element);
      }
      continue;
    }
    total += MEMORY_COSTS.object;
    for (const key of Object.keys(container)) {
      total += MEMORY_COSTS.member + estimateStringMemory(key);
      const member: unknown = Reflect.get(container, key);
      if (member !== null && typeof member === 'object') pending.push(member);
      else total += scalarCost(member);
    }
  }
  return total;
}

/** Bytes for a message: `32 MiB`, or `200 bytes` below one MiB. */
export const describeMemory = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB` : `${bytes} bytes`;
