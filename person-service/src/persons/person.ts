import type { components } from '../generated/api-types';

/** A person `{id, familyName, givenName}`, as person-api.yml's schema types it. */
export type Person = components['schemas']['Person'];
/** A person without an id, as POST /persons takes it. */
export type NewPerson = components['schemas']['NewPerson'];
