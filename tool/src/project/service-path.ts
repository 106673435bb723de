import { hasControlCharacter } from './has-control-character';

/** A `services[]` entry made from what a user typed: `users/user`, `/users/user/` and `/users//user` are all `/users/user`. */
export interface ServicePath {
  /** The entry as config.yml lists it, starting with `/`. */
  entry: string;
  /** Its folder names below servicesRoot. */
  segments: string[];
}

/** Normalises a service path, or says why it cannot be one (a `..` would leave servicesRoot). */
export function parseServicePath(input: string): ServicePath | { problem: string } {
  if (hasControlCharacter(input) || input.includes('\\')) {
    return { problem: `the path ${JSON.stringify(input)} contains a control character or a backslash` };
  }
  const segments = input.split('/').filter((segment) => segment !== '');
  if (segments.length === 0) return { problem: `the path ${JSON.stringify(input)} names no folder` };
  if (segments.some((segment) => segment === '.' || segment === '..')) {
    return {
      problem: `the path ${JSON.stringify(input)} must not contain "." or ".." (it must stay inside servicesRoot)`,
    };
  }
  return { entry: `/${segments.join('/')}`, segments };
}

/** The same entry, however it is spelled in config.yml; entries that are not paths compare as themselves. */
export function sameServicePath(a: string, b: string): boolean {
  const normal = (value: string): string => {
    const parsed = parseServicePath(value);
    return 'entry' in parsed ? parsed.entry : value;
  };
  return normal(a) === normal(b);
}
