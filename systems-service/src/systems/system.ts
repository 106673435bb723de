import type { components } from '../generated/api-types';

/** A system: an id, a name, and whatever else the client sent. */
export type System = components['schemas']['NewSystem'] & { id: string };
/** A system as POST /systems takes it: the id is optional. */
export type NewSystem = components['schemas']['NewSystem'];
