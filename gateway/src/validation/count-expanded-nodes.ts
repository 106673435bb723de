/**
 * How many nodes a dereferenced schema has when every shared object is counted each time it appears: what ajv
 * compiles, since it compiles each occurrence anew. A schema whose levels each use the one below twice is small in
 * memory and exponential to compile (14 levels: 12 s); counting is linear (each object's size is kept) and stops
 * at `limit`. A cycle counts once.
 */
export function countExpandedNodes(root: unknown, limit: number): number {
  const sizes = new Map<object, number>();
  const inProgress = new Set<object>();
  const count = (value: unknown): number => {
    if (value === null || typeof value !== 'object') return 1;
    const known = sizes.get(value);
    if (known !== undefined) return known;
    if (inProgress.has(value)) return 1;
    inProgress.add(value);
    let size = 1;
    for (const child of Object.values(value)) {
      size += count(child);
      if (size > limit) break;
    }
    inProgress.delete(value);
    sizes.set(value, Math.min(size, limit + 1));
    return Math.min(size, limit + 1);
  };
  return count(root);
}
