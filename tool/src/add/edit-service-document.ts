import {
  isMap,
  isNode,
  isScalar,
  isSeq,
  visit,
  type Alias,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { uriParameters } from './service-spec';

// Edits of a rendered service.yml as a YAML document, so comments, anchors and layout survive.

/** The key of a map entry as text (`GET`). */
export const keyOf = (pair: Pair): string => String(isScalar(pair.key) ? pair.key.value : pair.key);

/**
 * Removes the methods not asked for. An anchor (`&OkStatusCode`) defined in a removed method moves to its first
 * alias in a kept one, so the aliases keep resolving.
 */
export function keepMethods(document: Document, methods: YAMLMap, keep: string[]): void {
  const removed = new Set<Node>();
  for (const pair of methods.items) {
    if (keep.includes(keyOf(pair))) continue;
    if (isNode(pair.value)) {
      visit(pair.value, (_key, node) => {
        if (isNode(node)) removed.add(node);
      });
    }
  }
  const rehomed = new Set<Node>();
  for (const pair of methods.items) {
    if (!keep.includes(keyOf(pair)) || !isNode(pair.value)) continue;
    visit(pair.value, {
      Alias(_key, alias: Alias) {
        const source = alias.resolve(document);
        if (!source || !removed.has(source) || rehomed.has(source)) return undefined;
        rehomed.add(source);
        // A node's clone is a node of its kind: the guard only says so to the compiler.
        const copy = source.clone();
        return isNode(copy) ? copy : undefined;
      },
    });
  }
  methods.items = methods.items.filter((pair) => keep.includes(keyOf(pair)));
}

/** Declares every `{name}` of the uriTemplate as a URL parameter of each method, so docs and tests can fill it in. */
export function declareUriParameters(document: Document, methods: YAMLMap, uriTemplate: string, name: string): void {
  for (const pair of methods.items) {
    if (!isMap(pair.value)) continue;
    const method = pair.value;
    for (const parameter of uriParameters(uriTemplate)) {
      const request: unknown = method.get('request', true);
      const requestMap: YAMLMap = isMap(request) ? request : document.createNode({});
      if (requestMap !== request) method.set('request', requestMap);
      const list: unknown = requestMap.get('parameters', true);
      const parameters: YAMLSeq = isSeq(list) ? list : document.createNode([]);
      if (parameters !== list) requestMap.set('parameters', parameters);
      const declared = parameters.items.filter(isMap).find((item) => item.get('name') === parameter);
      if (declared) {
        // Named in the uriTemplate, it is part of the path (upstream's RESOURCE template declares `id` as QUERY).
        declared.set('kind', 'URL');
        continue;
      }
      parameters.flow = false;
      parameters.items.push(
        document.createNode({
          name: parameter,
          kind: 'URL',
          required: true,
          type: 'string',
          summary: `The ${parameter} of the ${name}`,
          default: '1',
        }),
      );
    }
  }
}
