// A concrete path turned into the route it stands for: `/customers/42` is `/customers/{customerId}`.
import { singular } from '@restbus/project-format';

/** One path segment of a recorded route: a literal, or a parameter with the value the recorded call had. */
export type RouteSegment = { literal: string } | { parameter: string; value: string };

export interface GeneralisedPath {
  /** The uriTemplate, below serviceUrlPrefix: `/customers/{customerId}`. */
  uriTemplate: string;
  segments: RouteSegment[];
  /** The URL parameters with the values of the recorded call, in path order. */
  parameters: Array<{ name: string; value: string }>;
  /** The service folder below servicesRoot: `customers/customer`. */
  folder: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A MongoDB ObjectId is 24 hex digits; other hashes and ids are longer. A word of hex letters alone ("facade") is
// too short, and one of 16 without a digit is far more likely a word than an id.
const LONG_HEX = /^[0-9a-f]{16,}$/i;

/** Whether a path segment is a concrete id: digits, a UUID, or a long hex string (an ObjectId). */
export function looksLikeId(segment: string): boolean {
  return /^\d+$/.test(segment) || UUID.test(segment) || (LONG_HEX.test(segment) && /\d/.test(segment));
}

/** `order-items` → `orderItems`; an identifier made of the segment's letters and digits, or '' if it has none. */
function toIdentifier(segment: string): string {
  const words = segment.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words
    .map((word, index) =>
      index === 0 ? word.charAt(0).toLowerCase() + word.slice(1) : word.charAt(0).toUpperCase() + word.slice(1),
    )
    .join('');
  return /^[A-Za-z]/.test(joined) ? joined : '';
}

/** A folder name from a segment: letters, digits, `.`, `_`, `-` and `~`, not starting with a dot or a dash. */
export function toFolderName(segment: string): string {
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // Kept as it is: the characters below are replaced anyway.
  }
  // No hidden folder, no `.` or `..`.
  name = name.replace(/[^A-Za-z0-9._~-]+/g, '-').replace(/^[-.]+|-+$/g, '');
  return name === '' ? 'x' : name.slice(0, 100);
}

/**
 * The route of a path below serviceUrlPrefix (normalised: no `//`, no dot segments), or undefined when it cannot be
 * one (a segment with `{` or `}` would be read as a parameter). Every segment that looks like an id becomes a
 * parameter named after the segment before it: `{customerId}` after `customers`, else `{id}` (`{id2}` for a second).
 */
export function generalisePath(path: string): GeneralisedPath | undefined {
  const pieces = path.split('/').filter((piece) => piece !== '');
  if (pieces.some((piece) => /[{}]/.test(piece))) return undefined;
  const segments: RouteSegment[] = [];
  const parameters: Array<{ name: string; value: string }> = [];
  const folder: string[] = [];
  const taken = new Set<string>();
  pieces.forEach((piece, index) => {
    const before = index > 0 ? segments[index - 1] : undefined;
    if (!looksLikeId(piece)) {
      segments.push({ literal: piece });
      folder.push(toFolderName(piece));
      return;
    }
    const word = before && 'literal' in before ? singular(before.literal) : '';
    const noun = toIdentifier(word);
    let name = noun ? `${noun}Id` : 'id';
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${noun ? `${noun}Id` : 'id'}${n}`;
    taken.add(name.toLowerCase());
    segments.push({ parameter: name, value: piece });
    parameters.push({ name, value: piece });
    folder.push(noun ? toFolderName(word) : 'item');
  });
  const uriTemplate = `/${segments.map((segment) => ('literal' in segment ? segment.literal : `{${segment.parameter}}`)).join('/')}`;
  return { uriTemplate, segments, parameters, folder: folder.length ? folder : ['root'] };
}
