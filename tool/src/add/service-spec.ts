import { hasControlCharacter } from '../project/has-control-character';

export const SERVICE_TYPES = ['OPERATION', 'COLLECTION', 'RESOURCE'] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

export const HTTP_METHODS = ['GET', 'PUT', 'POST', 'DELETE'] as const;

export const DEFAULT_DESCRIPTION = 'This is the description of the service';

/** One service to add, as `add` options or an `add-bulk` entry give it. */
export interface ServiceSpec {
  type: ServiceType;
  /** The service folder below servicesRoot, as typed (`users/user`, `/users/user`). */
  path: string;
  uriTemplate: string;
  name: string;
  description: string;
  /** Keep only these methods of the type's template (all of them when absent). */
  methods?: string[];
}

export function isServiceType(value: unknown): value is ServiceType {
  return SERVICE_TYPES.some((type) => type === value);
}

/** A problem with a uriTemplate, or undefined: it starts with "/", has no blanks, and its parameters are `{name}`. */
export function checkUriTemplate(uriTemplate: string): string | undefined {
  if (!uriTemplate.startsWith('/')) return `the uriTemplate ${JSON.stringify(uriTemplate)} must start with "/"`;
  if (hasControlCharacter(uriTemplate) || /[\s?#]/.test(uriTemplate)) {
    return `the uriTemplate ${JSON.stringify(uriTemplate)} must not contain blanks, control characters, "?" or "#"`;
  }
  if (/[{}]/.test(uriTemplate.replace(/\{\w+\}/g, ''))) {
    return `the uriTemplate ${JSON.stringify(uriTemplate)} has a "{" or "}" that is not part of a {parameter}`;
  }
  return undefined;
}

/** The `{name}` parameters of a uriTemplate, in order. */
export function uriParameters(uriTemplate: string): string[] {
  return [...uriTemplate.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
}
