import { appendPointer } from './reply-violation';

/** What one walk over a body that came parsed (a reply sent as one JSON envelope) found. */
export interface BodyValueShape {
  /** About the length of its JSON text: what decides, as for a text, whether every error is listed. */
  textLength: number;
  /** The first number JSON cannot write (Infinity from `1e999`: the client would read null), as a JSON pointer. */
  nonFinite?: string;
  /** Whether it nests deeper than the walk's `maxDepth`: then nothing under that depth was looked at. */
  tooDeep: boolean;
}

/**
 * Walks a parsed body once: its size as text, a number the gateway would write as `null` (what the check read is
 * not what the client reads), and its depth. Repeated names need no look here: the gateway writes this value
 * again, so the client reads the one the check read. Recursion stops at `maxDepth`, far from the stack's end.
 */
export function inspectBodyValue(value: unknown, maxDepth: number): BodyValueShape {
  const shape: BodyValueShape = { textLength: 0, tooDeep: false };
  const path: Array<string | number> = [];
  const visit = (node: unknown, depth: number): void => {
    if (shape.nonFinite !== undefined || shape.tooDeep) return;
    if (typeof node === 'string') shape.textLength += node.length + 2;
    else if (typeof node === 'number') {
      if (!Number.isFinite(node)) shape.nonFinite = path.reduce<string>(appendPointer, '');
      shape.textLength += 8;
    } else if (node === null || typeof node !== 'object') shape.textLength += 5;
    else if (depth >= maxDepth) shape.tooDeep = true;
    else if (Array.isArray(node)) {
      shape.textLength += 2 + node.length;
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        visit(node[i], depth + 1);
        path.pop();
      }
    } else {
      shape.textLength += 2;
      // Keys and a lookup, not Object.entries: a pair array for each member of an object of 60,000 names was most
      // of this walk's time (the bench's widest reply held the loop past 100 ms).
      const record = node as Record<string, unknown>;
      const names = Object.keys(record);
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        shape.textLength += name.length + 4;
        path.push(name);
        visit(record[name], depth + 1);
        path.pop();
      }
    }
  };
  visit(value, 0);
  return shape;
}
