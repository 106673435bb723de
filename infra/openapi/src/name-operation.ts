/** The words of a path segment: `person-groups` → `Person`, `Groups`; `{id}` → `By`, `Id`. */
function toWords(segment: string): string[] {
  const parameter = /^\{(.+)\}$/.exec(segment);
  const words = (parameter ? parameter[1] : segment).split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const capitalised = words.map((word) => word[0].toUpperCase() + word.slice(1));
  return parameter ? ['By', ...capitalised] : capitalised;
}

/**
 * The name of an operation that has no `operationId`: the method, then each path segment in PascalCase, a
 * parameter as `By<Name>`: `GET /persons/{id}` → `getPersonsById`, `POST /person-groups` → `postPersonGroups`,
 * `GET /` → `getRoot`. It depends only on method and path, so it is stable while they are. When the name is
 * already taken (by an `operationId` or an earlier operation), `_2`, `_3` … is appended. A name that would start
 * with a digit cannot: the method comes first.
 */
export function nameOperation(method: string, path: string, taken: ReadonlySet<string> = new Set()): string {
  const words = path
    .split('/')
    .filter((segment) => segment !== '')
    .flatMap(toWords);
  const base = method.toLowerCase() + (words.length > 0 ? words.join('') : 'Root');
  let name = base;
  for (let n = 2; taken.has(name); n += 1) name = `${base}_${n}`;
  return name;
}
