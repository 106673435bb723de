import type { Person } from './person';

/** Where persons are kept. Asynchronous so that a durable store can stand in for the memory one. */
export interface PersonStore {
  list(): Promise<Person[]>;
  get(id: string): Promise<Person | undefined>;
  /** Creates or replaces; returns the stored person. */
  put(person: Person): Promise<Person>;
  /** Returns false when there was no such person. */
  remove(id: string): Promise<boolean>;
  clear(): Promise<void>;
}

/** Keeps persons in process memory, in insertion order (a replaced person keeps its place). */
export function createMemoryPersonStore(): PersonStore {
  const persons = new Map<string, Person>();
  return {
    list: async () => [...persons.values()].map((person) => ({ ...person })),
    get: async (id) => {
      const person = persons.get(id);
      return person && { ...person };
    },
    put: async (person) => {
      persons.set(person.id, { ...person });
      return { ...person };
    },
    remove: async (id) => persons.delete(id),
    clear: async () => persons.clear(),
  };
}
