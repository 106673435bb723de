import { findControlCharacter } from './subject-limits';

/** Why a path cannot be routed (and become part of a NATS subject), or undefined when it can. */
export function checkPathTemplate(uri: string): string | undefined {
  if (!uri.startsWith('/')) return 'a path must start with "/"';
  const control = findControlCharacter(uri);
  if (control) return `the path contains ${control}, which cannot be part of a NATS subject`;
  if (/[\s*>]/.test(uri)) {
    return 'the path contains whitespace or a NATS wildcard character ("*", ">"), which cannot be part of a subject';
  }
  if (/\.\.|\.$|\.\//.test(uri)) {
    return 'the path would give a subject with an empty token (a "." next to another "." or "/", or at the end)';
  }
  if (!/^(?:[^{}]|\{[^{}/]+\})*$/.test(uri)) {
    return 'not a valid path template: each "{" opens a parameter name that a "}" closes before the next "/"';
  }
  const names = [...uri.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) return `the path names the parameter {${twice}} twice`;
  return undefined;
}
