// How a service is named after its path, the one answer for the tool's import-oas and the mock server's record mode:
// `/customers/{customerId}` lives in `services/customers/customer`.

const IRREGULAR: Readonly<Record<string, string>> = {
  people: 'person',
  children: 'child',
  men: 'man',
  women: 'woman',
  data: 'data',
  movies: 'movie',
  cookies: 'cookie',
  caches: 'cache',
  news: 'news',
  series: 'series',
  species: 'species',
  status: 'status',
};

/** The singular of an English plural, by the common rules (`categories` → `category`, `boxes` → `box`). */
export function singular(word: string): string {
  const lower = word.toLowerCase();
  if (Object.hasOwn(IRREGULAR, lower)) return IRREGULAR[lower];
  if (/[^aeiou]ies$/i.test(word)) return `${word.slice(0, -3)}y`;
  // `statuses` → `status`, but `houses` → `house`.
  if (/(ss|[^oa]us|x|ch|sh|z)es$/i.test(word)) return word.slice(0, -2);
  if (/s$/i.test(word) && !/(ss|us|is)$/i.test(word)) return word.slice(0, -1);
  return word;
}

/** Whether a path segment reads as a plural noun, the name of a collection. */
export const looksPlural = (word: string): boolean => singular(word) !== word || /^(people|children|data)$/i.test(word);
