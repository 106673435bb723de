import { JsonText } from '../wire/json-text';

declare const standsFor: unique symbol;

/**
 * JSON text that stands for a value of type T: a handler may answer it where its reply's body is a T, and the reply
 * encoder sends the text as it is (a page's cached `json`, encoded once while the list is unchanged).
 */
export type JsonTextOf<T> = JsonText & { readonly [standsFor]: T };

/**
 * Says that JSON text (a string, or a JsonText such as a store page's `json`) stands for a T. The text is not parsed
 * or checked: it is the caller's word, as for any value it encoded itself.
 */
export function jsonTextOf<T>(text: string | JsonText): JsonTextOf<T> {
  return (typeof text === 'string' ? new JsonText(text) : text) as JsonTextOf<T>;
}
