/** An object key as TypeScript source: bare when it is an identifier (`getPersons`), quoted otherwise. */
export const toPropertyKey = (name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
