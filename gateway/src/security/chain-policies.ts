import type { CallPolicy, PolicyCall } from './call-policy';

/**
 * Policies run one after the other on each call, in the order given (the operation's security, then its rate
 * limits, which may count by the subject security verified): the first that refuses refuses the call. Synchronous
 * while each step is.
 */
export class ChainedPolicy implements CallPolicy {
  constructor(private readonly steps: readonly CallPolicy[]) {}

  admit(call: PolicyCall): void | Promise<void> {
    return this.admitFrom(0, call);
  }

  private admitFrom(first: number, call: PolicyCall): void | Promise<void> {
    for (let i = first; i < this.steps.length; i++) {
      const decided = this.steps[i].admit(call);
      if (decided) return decided.then(() => this.admitFrom(i + 1, call));
    }
  }
}

/** Each endpoint's policies of every map, chained in the order of the maps; undefined when no map has any. */
export function chainPolicies<K>(
  ...maps: Array<ReadonlyMap<K, CallPolicy> | undefined>
): ReadonlyMap<K, CallPolicy> | undefined {
  const steps = new Map<K, CallPolicy[]>();
  for (const map of maps) for (const [key, policy] of map ?? []) steps.set(key, [...(steps.get(key) ?? []), policy]);
  if (steps.size === 0) return undefined;
  return new Map([...steps].map(([key, list]) => [key, list.length === 1 ? list[0] : new ChainedPolicy(list)]));
}
