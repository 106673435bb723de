import { looksPlural, singular } from '@restbus/project-format';
import { SERVICE_TYPES, type ServiceType } from '../add/service-spec';

// What `rest-tool add` is told by hand (`-p /users/user -u '/users/{id}' -t RESOURCE`), guessed from an OpenAPI path.

/** A folder name from a path segment: letters, digits, `.`, `_`, `-` and `~`, not starting with a dot or a dash. */
export function toFolderName(segment: string): string {
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // Kept as written: the characters below are replaced anyway.
  }
  name = name.replace(/[^\p{L}\p{N}._~-]+/gu, '-').replace(/^[-.]+|[-.]+$/g, '');
  return name === '' ? 'x' : name.slice(0, 100);
}

const PARAMETER = /\{([^}]*)\}/g;

/** `petId` → `pet`, `order_id` → `order`, `id` → ''. */
const nounOfParameter = (name: string): string => name.replace(/[-_.]?id$/i, '');

/**
 * The service folder of an OpenAPI path, below servicesRoot, as `rest-tool add -p /users/user -u '/users/{id}'`
 * would be told: literal segments as they are; a `{parameter}` segment after a plural one is its singular
 * (`/pets/{petId}` → `pets/pet`, `/books/{isbn}` → `books/book`), else the parameter's name without its `Id`
 * (`/store/{orderId}` → `store/order`), else `item`; `/` is `root`.
 */
export function toServiceFolder(path: string): string[] {
  const segments = path.split('/').filter((segment) => segment !== '');
  const folder: string[] = [];
  segments.forEach((segment, index) => {
    const whole = /^\{([^}]*)\}$/.exec(segment);
    if (!whole) {
      folder.push(toFolderName(segment.replace(PARAMETER, (_match, name: string) => name)));
      return;
    }
    const before = index > 0 && !segments[index - 1].includes('{') ? segments[index - 1] : '';
    const noun =
      (looksPlural(before) && singular(before) !== before ? singular(before) : '') ||
      nounOfParameter(whole[1]) ||
      'item';
    folder.push(toFolderName(noun));
  });
  return folder.length ? folder : ['root'];
}

/** What the guess of a style goes by. */
export interface StyleClues {
  path: string;
  methods: readonly string[];
  /** Whether the GET's successful answer is described as an array. */
  listsItems: boolean;
}

/**
 * The style of a path's service: RESOURCE when its last segment holds a path parameter (`/pets/{petId}`);
 * COLLECTION when it has GET or POST and reads as a list (both GET and POST, a plural last segment, or a GET that
 * answers an array: `/pets`); OPERATION otherwise (`/login`, `/health`).
 */
export function guessStyle(clues: StyleClues): ServiceType {
  const segments = clues.path.split('/').filter(Boolean);
  const last = segments[segments.length - 1] ?? '';
  if (last.includes('{')) return 'RESOURCE';
  const has = (method: string): boolean => clues.methods.includes(method);
  if (!has('GET') && !has('POST')) return 'OPERATION';
  if ((has('GET') && has('POST')) || looksPlural(last) || clues.listsItems) return 'COLLECTION';
  return 'OPERATION';
}

/** A style as given (`x-restbus-style`, `--style`), any case, or undefined when it is not one. */
export function parseStyle(value: unknown): ServiceType | undefined {
  if (typeof value !== 'string') return undefined;
  const upper = value.trim().toUpperCase();
  return SERVICE_TYPES.find((type) => type === upper);
}
